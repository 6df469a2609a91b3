-- The cache generation: a counter that moves whenever something a process may keep in memory about callers
-- changes (`auth/cache.py`): users, their roles and sessions, roles' permissions, API tokens, collection
-- clients, configuration, feature flags and the edge kinds extensions declare. Each request reads it in its first
-- statement; a process keeps what it has checked only while the generation it was read under holds, so a revoked
-- credential is refused everywhere from the next request on.
--
-- The triggers are deferred to the commit, and the counter moves once per transaction (the setting
-- `houndgraph.cache_generation_moved`): a request that reads the new generation also reads the changed rows,
-- and a transaction that changes many rows moves it once. A row, not a sequence: a sequence moves before the
-- commit, and a reader could cache the old rows under the new number. Row conditions let writes that change
-- nothing cached pass; logins write `last_login`, so each login moves it (caches fill again once per login,
-- not per request).

CREATE OR REPLACE FUNCTION move_cache_generation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('houndgraph.cache_generation_moved', true) IS DISTINCT FROM 'on' THEN
        UPDATE cache_generation SET generation = generation + 1;
        PERFORM set_config('houndgraph.cache_generation_moved', 'on', true);
    END IF;
    RETURN NULL;
END $$;

-- Constraint triggers cannot be created OR REPLACE: each is dropped and created again, in this one transaction.
DROP TRIGGER IF EXISTS users_insert_moves_cache_generation ON users;
CREATE CONSTRAINT TRIGGER users_insert_moves_cache_generation AFTER INSERT ON users
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation();

DROP TRIGGER IF EXISTS users_update_moves_cache_generation ON users;
CREATE CONSTRAINT TRIGGER users_update_moves_cache_generation AFTER UPDATE ON users
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION move_cache_generation();

DROP TRIGGER IF EXISTS users_delete_moves_cache_generation ON users;
CREATE CONSTRAINT TRIGGER users_delete_moves_cache_generation AFTER DELETE ON users
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation();

DROP TRIGGER IF EXISTS users_roles_insert_moves_cache_generation ON users_roles;
CREATE CONSTRAINT TRIGGER users_roles_insert_moves_cache_generation AFTER INSERT OR UPDATE OR DELETE ON users_roles
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation();

DROP TRIGGER IF EXISTS roles_update_moves_cache_generation ON roles;
CREATE CONSTRAINT TRIGGER roles_update_moves_cache_generation AFTER UPDATE OR DELETE ON roles
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation();

DROP TRIGGER IF EXISTS permissions_update_moves_cache_generation ON permissions;
CREATE CONSTRAINT TRIGGER permissions_update_moves_cache_generation AFTER UPDATE OR DELETE ON permissions
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation();

DROP TRIGGER IF EXISTS roles_permissions_insert_moves_cache_generation ON roles_permissions;
CREATE CONSTRAINT TRIGGER roles_permissions_insert_moves_cache_generation
AFTER INSERT OR UPDATE OR DELETE ON roles_permissions
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation();

DROP TRIGGER IF EXISTS user_sessions_update_moves_cache_generation ON user_sessions;
CREATE CONSTRAINT TRIGGER user_sessions_update_moves_cache_generation AFTER UPDATE OR DELETE ON user_sessions
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation();

DROP TRIGGER IF EXISTS auth_tokens_update_moves_cache_generation ON auth_tokens;
CREATE CONSTRAINT TRIGGER auth_tokens_update_moves_cache_generation AFTER UPDATE ON auth_tokens
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
WHEN (OLD.key IS DISTINCT FROM NEW.key OR OLD.user_id IS DISTINCT FROM NEW.user_id
      OR OLD.client_id IS DISTINCT FROM NEW.client_id)
EXECUTE FUNCTION move_cache_generation();

DROP TRIGGER IF EXISTS auth_tokens_delete_moves_cache_generation ON auth_tokens;
CREATE CONSTRAINT TRIGGER auth_tokens_delete_moves_cache_generation AFTER DELETE ON auth_tokens
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation();

DROP TRIGGER IF EXISTS clients_update_moves_cache_generation ON clients;
CREATE CONSTRAINT TRIGGER clients_update_moves_cache_generation AFTER UPDATE ON clients
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.name IS DISTINCT FROM NEW.name)
EXECUTE FUNCTION move_cache_generation();

DROP TRIGGER IF EXISTS clients_delete_moves_cache_generation ON clients;
CREATE CONSTRAINT TRIGGER clients_delete_moves_cache_generation AFTER DELETE ON clients
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation();

DROP TRIGGER IF EXISTS parameters_insert_moves_cache_generation ON parameters;
CREATE CONSTRAINT TRIGGER parameters_insert_moves_cache_generation AFTER INSERT OR UPDATE OR DELETE ON parameters
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation();

-- A password set, changed or reset changes what `/self` answers (its `AuthSecret`).
DROP TRIGGER IF EXISTS auth_secrets_insert_moves_cache_generation ON auth_secrets;
CREATE CONSTRAINT TRIGGER auth_secrets_insert_moves_cache_generation AFTER INSERT OR UPDATE OR DELETE ON auth_secrets
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation();

-- Feature flags and the edge kinds uploaded extensions declare: what path finding follows
-- (`extension.service.uploaded_edge_kinds` keeps them for the generation it read them at).
DROP TRIGGER IF EXISTS feature_flags_moves_cache_generation ON feature_flags;
CREATE CONSTRAINT TRIGGER feature_flags_moves_cache_generation AFTER INSERT OR UPDATE OR DELETE ON feature_flags
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation();

DROP TRIGGER IF EXISTS schema_extensions_moves_cache_generation ON schema_extensions;
CREATE CONSTRAINT TRIGGER schema_extensions_moves_cache_generation
AFTER INSERT OR UPDATE OR DELETE ON schema_extensions
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation();

DROP TRIGGER IF EXISTS schema_relationship_kinds_moves_cache_generation ON schema_relationship_kinds;
CREATE CONSTRAINT TRIGGER schema_relationship_kinds_moves_cache_generation
AFTER INSERT OR UPDATE OR DELETE ON schema_relationship_kinds
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation();
