#!/bin/sh
# skip_unless_present.sh PATH WHY COMMAND...: runs COMMAND, or, when PATH does
# not exist, says so and exits 77 (CTest's SKIP_RETURN_CODE) without running it.
path=$1
why=$2
shift 2
if [ ! -e "$path" ]; then
  echo "SKIP: $path not found: $why"
  exit 77
fi
exec "$@"
