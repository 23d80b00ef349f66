#!/bin/sh
# Lets the `replica` service (docker-compose.yml) stream from this primary: run once, by the
# postgres image's entrypoint, when it creates the database. On a database created before, add
# the same line to pg_hba.conf yourself and reload (README: "Read replicas").
set -e
echo "host replication ${POSTGRES_USER} all scram-sha-256" >> "$PGDATA/pg_hba.conf"
