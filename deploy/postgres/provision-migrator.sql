-- The migrator's login role: it connects to each service database (provision-service.sql grants
-- that) and runs the migrations as the service's role there. No CREATEDB, no CREATEROLE.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
\getenv password DB_ROLE_PASSWORD
SELECT coalesce(:'password', '') <> '' AS has_password \gset
SELECT format('CREATE ROLE %I LOGIN', :'migrator')
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'migrator') \gexec
ALTER ROLE :"migrator" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT;
\if :has_password
ALTER ROLE :"migrator" PASSWORD :'password';
\else
ALTER ROLE :"migrator" PASSWORD NULL;
\endif
