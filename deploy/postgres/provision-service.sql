-- One service's role and database, and the migrator's access to them. Run by provision.sh with psql
-- (variables: role, database, migrator; the role's password in DB_ROLE_PASSWORD) as an administrator
-- holding CREATEROLE and CREATEDB (or a superuser). Idempotent: every run converges on this state.
\set ON_ERROR_STOP on
SET client_min_messages = warning;

-- The service's login role: no privilege beyond its own database.
\ir provision-role.sql

-- Its database, owned by it (and so its public schema: PostgreSQL 15 gives that to the owner).
SELECT format('CREATE DATABASE %I OWNER %I', :'database', :'role')
 WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'database') \gexec
ALTER DATABASE :"database" OWNER TO :"role";

-- Nobody else connects: PostgreSQL grants CONNECT and TEMPORARY to PUBLIC on every new database.
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"database" TO :"role";
GRANT CONNECT ON DATABASE :"database" TO :"migrator";

-- The migrator's sessions in this database act as the service's role, so every table a migration
-- creates belongs to the service (which reads and writes it) and nothing belongs to the migrator.
GRANT :"role" TO :"migrator";
ALTER ROLE :"migrator" IN DATABASE :"database" SET role = :'role';
