-- Full-text search by platform (issue 24; docs/data-apis.md "Search at scale"):
-- one partial GIN index per platform of spec 1 on `works` and `accounts`.
-- Every text search names its platform (as a literal, so that a cached
-- generic plan can use these too), and PostgreSQL then reads only that
-- platform's matches from the index instead of every platform's matches,
-- each checked against the heap for its platform. `works_search` and
-- `accounts_search` stay for a platform outside this list. A platform added
-- to spec 1's list needs its indexes in a new migration (a unit test of the
-- store checks that every listed platform has them).
CREATE INDEX works_search_lifestyle ON works USING GIN (search_vector) WHERE platform = 'lifestyle';
CREATE INDEX works_search_shortvideo ON works USING GIN (search_vector) WHERE platform = 'shortvideo';
CREATE INDEX works_search_articles ON works USING GIN (search_vector) WHERE platform = 'articles';
CREATE INDEX works_search_videosite ON works USING GIN (search_vector) WHERE platform = 'videosite';
CREATE INDEX works_search_intlshort ON works USING GIN (search_vector) WHERE platform = 'intlshort';
CREATE INDEX works_search_channels ON works USING GIN (search_vector) WHERE platform = 'channels';
CREATE INDEX works_search_clipapp ON works USING GIN (search_vector) WHERE platform = 'clipapp';
CREATE INDEX works_search_trend ON works USING GIN (search_vector) WHERE platform = 'trend';
CREATE INDEX works_search_tool ON works USING GIN (search_vector) WHERE platform = 'tool';
CREATE INDEX works_search_multi ON works USING GIN (search_vector) WHERE platform = 'multi';
CREATE INDEX works_search_microblog ON works USING GIN (search_vector) WHERE platform = 'microblog';
CREATE INDEX accounts_search_lifestyle ON accounts USING GIN (search_vector) WHERE platform = 'lifestyle';
CREATE INDEX accounts_search_shortvideo ON accounts USING GIN (search_vector) WHERE platform = 'shortvideo';
CREATE INDEX accounts_search_articles ON accounts USING GIN (search_vector) WHERE platform = 'articles';
CREATE INDEX accounts_search_videosite ON accounts USING GIN (search_vector) WHERE platform = 'videosite';
CREATE INDEX accounts_search_intlshort ON accounts USING GIN (search_vector) WHERE platform = 'intlshort';
CREATE INDEX accounts_search_channels ON accounts USING GIN (search_vector) WHERE platform = 'channels';
CREATE INDEX accounts_search_clipapp ON accounts USING GIN (search_vector) WHERE platform = 'clipapp';
CREATE INDEX accounts_search_trend ON accounts USING GIN (search_vector) WHERE platform = 'trend';
CREATE INDEX accounts_search_tool ON accounts USING GIN (search_vector) WHERE platform = 'tool';
CREATE INDEX accounts_search_multi ON accounts USING GIN (search_vector) WHERE platform = 'multi';
CREATE INDEX accounts_search_microblog ON accounts USING GIN (search_vector) WHERE platform = 'microblog';
