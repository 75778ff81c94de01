-- One login role with no privilege of its own (no CREATEDB, no CREATEROLE; docs/security.md,
-- "Database roles"): the migrator, or a service's role before provision-service.sql gives it its
-- database. Run by provision.sh with psql (variable: role; its password in DB_ROLE_PASSWORD, empty
-- for none) as an administrator holding CREATEROLE. Idempotent: every run converges on this state.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
\getenv password DB_ROLE_PASSWORD
SELECT coalesce(:'password', '') <> '' AS has_password \gset
SELECT format('CREATE ROLE %I LOGIN', :'role')
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'role') \gexec
ALTER ROLE :"role" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT;
\if :has_password
ALTER ROLE :"role" PASSWORD :'password';
\else
ALTER ROLE :"role" PASSWORD NULL;
\endif
