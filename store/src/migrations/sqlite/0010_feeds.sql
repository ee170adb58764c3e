-- Feed tokens (issue 19 item 5; docs/watchlists.md "Feeds"): one token per
-- (account, feed), kept as its SHA-256 (hex); `feed` is `hotlists/<source>`
-- or `watchlists/<id>`. Rotating replaces the row, revoking deletes it.
CREATE TABLE feed_tokens (
    account_id TEXT NOT NULL,
    feed TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    PRIMARY KEY (account_id, feed)
);
