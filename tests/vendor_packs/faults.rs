//! Vendor faults through the packs: 4xx, 5xx, 429, timeouts, malformed JSON and unsuccessful business codes, each with its documented status in bounded time and the charge released.
