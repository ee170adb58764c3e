-- Change notices (docs/store.md "Point reads on PostgreSQL"): a commit that
-- changes a stored work or account, or one of their snapshots, notifies the
-- channel `mediaops_content`; one that changes a banned-word list notifies
-- `mediaops_word_lists` (one notice per statement; the server folds a
-- transaction's notices on a channel into one, sent at commit). Each core
-- listens, and drops what it keeps in memory of them.
CREATE FUNCTION mediaops_notify_change() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
    -- The trigger's argument: the channel.
    PERFORM pg_notify(TG_ARGV[0], '');
    RETURN NULL;
END
$body$;
CREATE TRIGGER works_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON works
    FOR EACH STATEMENT EXECUTE FUNCTION mediaops_notify_change('mediaops_content');
CREATE TRIGGER accounts_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON accounts
    FOR EACH STATEMENT EXECUTE FUNCTION mediaops_notify_change('mediaops_content');
CREATE TRIGGER work_snapshots_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON work_snapshots
    FOR EACH STATEMENT EXECUTE FUNCTION mediaops_notify_change('mediaops_content');
CREATE TRIGGER account_snapshots_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON account_snapshots
    FOR EACH STATEMENT EXECUTE FUNCTION mediaops_notify_change('mediaops_content');
CREATE TRIGGER word_lists_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON word_lists
    FOR EACH STATEMENT EXECUTE FUNCTION mediaops_notify_change('mediaops_word_lists');
