#!/bin/sh
# Creates (when missing) and migrates the Temporal server's two PostgreSQL databases to the latest
# schema: PREFIX and PREFIX_visibility. Idempotent: `setup-schema -v 0.0` only creates the version
# table when absent, `update-schema` applies the versioned steps above the recorded version.
# Used by temporal/server-postgres.sh and by docker-compose.yml's temporal-schema service.
# Usage: setup-schema.sh SQL_TOOL SCHEMA_DIR [PREFIX]   (SCHEMA_DIR = .../schema/postgresql/v12)
# Connection from temporal-sql-tool's own variables: SQL_PLUGIN=postgres12, SQL_HOST, SQL_PORT,
# SQL_USER, SQL_PASSWORD.
set -eu
tool="$1"; schema="$2"; prefix="${3:-temporal}"
for pair in "$prefix:temporal" "${prefix}_visibility:visibility"; do
  db="${pair%%:*}"; kind="${pair##*:}"
  "$tool" --database "$db" create-database 2>/dev/null || echo "database $db exists"
  "$tool" --database "$db" setup-schema -v 0.0
  "$tool" --database "$db" update-schema -d "$schema/$kind/versioned"
done
echo "schema of $prefix and ${prefix}_visibility is current"
