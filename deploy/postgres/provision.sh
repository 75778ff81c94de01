#!/bin/sh
# Makes the database roles: the migrator, and for each service a login role owning its own database
# (provision-role.sql, provision-service.sql). Idempotent. Run by compose's db-roles one-shot, by
# the Kubernetes migrations Job (before the migrations) and by test/deploy/database-roles.int.test.ts.
#
# The administrator's connection comes from libpq's variables (PGHOST, PGPORT, PGUSER, PGPASSWORD;
# a role with CREATEROLE and CREATEDB, or a superuser). Names and passwords:
#   DB_SERVICES        the services, space-separated (default: every deployed service)
#   DB_ROLE_PREFIX     role names <prefix>_<service> and <prefix>_migrator (default social)
#   DB_DATABASE_PREFIX database names <prefix>_<service> (default social, as the services expect)
#   DB_PASSWORD_<SERVICE>, DB_PASSWORD_MIGRATOR  each role's password (SERVICE in capitals, - as _);
#                      empty: no password (a local server that trusts its clients)
#   DB_REQUIRE_PASSWORDS=1  refuse to run when one is empty (compose, Kubernetes)
set -eu

dir=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
services=${DB_SERVICES:-gateway dashboard accounts publisher scheduler webhook-dispatcher analytics-sync billing}
role_prefix=${DB_ROLE_PREFIX:-social}
database_prefix=${DB_DATABASE_PREFIX:-social}
migrator="${role_prefix}_migrator"

# The value of DB_PASSWORD_<NAME> for a service or `migrator`.
password_of() {
  variable="DB_PASSWORD_$(printf '%s' "$1" | tr 'a-z-' 'A-Z_')"
  value=$(printenv "$variable" || true)
  if [ -z "$value" ] && [ "${DB_REQUIRE_PASSWORDS:-0}" = 1 ]; then
    echo "provision: $variable is empty" >&2
    exit 1
  fi
  printf '%s' "$value"
}

run() {
  psql -X -q -v ON_ERROR_STOP=1 -d "${PGDATABASE:-postgres}" "$@"
}

password=$(password_of migrator)
DB_ROLE_PASSWORD="$password" run -v role="$migrator" -f "$dir/provision-role.sql"
for service in $services; do
  suffix=$(printf '%s' "$service" | tr '-' '_')
  password=$(password_of "$service")
  DB_ROLE_PASSWORD="$password" run -v role="${role_prefix}_$suffix" -v database="${database_prefix}_$suffix" \
    -v migrator="$migrator" -f "$dir/provision-service.sql"
  echo "provision: ${role_prefix}_$suffix owns ${database_prefix}_$suffix"
done
