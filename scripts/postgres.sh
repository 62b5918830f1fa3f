#!/usr/bin/env bash
# PostgreSQL for the tests of @mneme/sql: the machine's cluster on 127.0.0.1:5432 (trust auth, a database named test),
# started with pg_ctlcluster when nothing answers there. Where it cannot be started, it says what is missing, and fails.
set -euo pipefail
answering() { (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; }
answering && exit 0
if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
  echo "mneme: the Postgres tests need PostgreSQL on 127.0.0.1:5432 (trust auth, a database named test);" \
    "nothing answers there, and there is no cluster for pg_ctlcluster to start" >&2
  exit 1
fi
version="$(ls /etc/postgresql | head -n 1)"
echo "mneme: starting PostgreSQL $version for the Postgres tests" >&2
if ! pg_ctlcluster --skip-systemctl-redirect "$version" main start >/tmp/mneme-postgres.log 2>&1; then
  echo "mneme: PostgreSQL $version could not be started (see /tmp/mneme-postgres.log):" >&2
  tail -n 5 /tmp/mneme-postgres.log >&2
  exit 1
fi
for _ in $(seq 1 60); do
  answering && exit 0
  sleep 0.5
done
echo "mneme: PostgreSQL $version was started, but nothing answers on 127.0.0.1:5432" >&2
exit 1
