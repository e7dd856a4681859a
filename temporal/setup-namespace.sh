#!/bin/sh
# Creates the namespace and the search attributes the workflows set (ChallengeId, AgentId,
# SubmissionStatus, MatchId, MatchStatus, AgentIds: src/temporal-client/search-attributes.ts), each step retried, since a fresh server answers
# before its namespace cache has caught up ("Namespace default is not found"). Done when a
# visibility query on all of them answers. Idempotent.
# Used by temporal/server-postgres.sh and by docker-compose.yml's temporal-setup service.
# Usage: setup-namespace.sh CLI ADDRESS [NAMESPACE]
set -eu
cli="$1"; address="$2"; namespace="${3:-default}"
t() { "$cli" --address "$address" --command-timeout 10s "$@"; }
# retry SECONDS WHAT CMD...
retry() {
  secs=$1; what=$2; shift 2
  tries=0
  until out="$("$@" 2>&1)"; do
    tries=$((tries + 1))
    if [ "$tries" -ge "$secs" ]; then echo "gave up: $what: $out" >&2; return 1; fi
    sleep 1
  done
}
retry 120 "frontend answers" t operator cluster health
t operator namespace describe --namespace "$namespace" >/dev/null 2>&1 \
  || retry 60 "create namespace $namespace" t operator namespace create --namespace "$namespace" --retention 72h
retry 60 "namespace $namespace visible" t operator namespace describe --namespace "$namespace"
for spec in ChallengeId:Keyword AgentId:Keyword SubmissionStatus:Keyword MatchId:Keyword MatchStatus:Keyword AgentIds:KeywordList; do
  attribute="${spec%%:*}"; type="${spec#*:}"
  if ! t operator search-attribute list --namespace "$namespace" 2>/dev/null | grep -qw "$attribute"; then
    retry 60 "create search attribute $attribute" \
      t operator search-attribute create --namespace "$namespace" --name "$attribute" --type "$type"
  fi
done
retry 60 "visibility query on the attributes" t workflow list --namespace "$namespace" --limit 1 \
  --query 'ChallengeId = "ready-check" AND AgentId = "ready-check" AND SubmissionStatus = "ready-check" AND MatchId = "ready-check" AND MatchStatus = "ready-check" AND AgentIds = "ready-check"'
echo "namespace $namespace ready with search attributes ChallengeId, AgentId, SubmissionStatus, MatchId, MatchStatus, AgentIds"
