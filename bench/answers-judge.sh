#!/usr/bin/env bash
# The answer judge of ../shared/tools run for real, end to end: the news corpus written as RSS
# feeds (20 feeds; the withheld variant as 4 feeds for a second user), served over HTTP, fetched
# by a real server, every question asked through POST /chat/completions, judged by answer-eval.py.
# This is what bench/answers.bench.ts reproduces in-process (fast); run this to check that the two
# agree.   usage: bench/answers-judge.sh [model=sonar] [workdir=/tmp/tidings-judge] [repo root=.]
set -euo pipefail
MODEL=${1:-sonar}
W=${2:-/tmp/tidings-judge}
ROOT=$(cd "${3:-$(dirname "$0")/..}" && pwd)
SHARED=${SHARED:-$ROOT/../shared}
[ -d "$SHARED/corpus/news" ] || { echo "skipped: $SHARED/corpus/news is not present"; exit 0; }
TIDINGS="node $ROOT/bin/tidings.js"
rm -rf "$W" && mkdir -p "$W"
python3 "$SHARED/tools/news-to-feeds.py" "$SHARED/corpus/news" "$W/www/feeds" 20 >/dev/null
python3 "$SHARED/tools/withhold-feeds.py" "$SHARED/corpus/news" "$W/www/held" 100 >/dev/null
FEED_PORT=$((20000 + RANDOM % 20000)); API_PORT=$((FEED_PORT + 1))
python3 -m http.server "$FEED_PORT" --bind 127.0.0.1 --directory "$W/www" >/dev/null 2>&1 &
FEEDS_PID=$!
SERVER_PID=
trap 'kill $FEEDS_PID ${SERVER_PID:-} 2>/dev/null || true' EXIT
export TIDINGS_DATA="$W/data" TIDINGS_ALLOW_PRIVATE_NETWORKS=true TIDINGS_LOG_LEVEL=warn TIDINGS_SCHEDULER=false
sleep 0.5
$TIDINGS user add reader --password 'judge-pass-1' >/dev/null
$TIDINGS user add held --password 'judge-pass-1' >/dev/null
for k in $(seq -w 0 19); do $TIDINGS feed add reader "http://127.0.0.1:$FEED_PORT/feeds/news-$k.xml" >/dev/null; done
for k in 0 1 2 3; do $TIDINGS feed add held "http://127.0.0.1:$FEED_PORT/held/held-$k.xml" >/dev/null; done
$TIDINGS refresh --all >/dev/null
KEY=$($TIDINGS key create reader --tier 5)
KEY_WITHHELD=$($TIDINGS key create held --tier 5)
TIDINGS_PORT=$API_PORT node "$ROOT/src/main.ts" >"$W/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$API_PORT/" >/dev/null 2>&1 && break; curl -s "http://127.0.0.1:$API_PORT/" >/dev/null 2>&1 && break; sleep 0.3; done
BASE="http://127.0.0.1:$API_PORT" KEY=$KEY KEY_WITHHELD=$KEY_WITHHELD WITHHELD=100 MODEL=$MODEL \
  QUESTIONS="$SHARED/corpus/news/questions.jsonl" OUT="$W/answers-$MODEL.jsonl" node "$SHARED/tools/ask-all.mjs"
python3 "$SHARED/tools/answer-eval.py" "$SHARED/corpus/news" "$W/answers-$MODEL.jsonl" --withheld 100
