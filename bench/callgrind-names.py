#!/usr/bin/env python3
# Names the JIT code in a callgrind profile: callgrind shows V8's generated code as bare addresses
# ("0x000027445fdd9640"); node run with --perf-basic-prof writes /tmp/perf-<pid>.map (start, size, name) for it.
# Usage: CALLGRIND_NODE_ARGS="--perf-basic-prof --no-turbo-inlining --logfile=/tmp/v8.log --no-logfile-per-isolate"
# node --import tsx bench/callgrind.ts ...; then bench/callgrind-names.py <dump>.1-01 /tmp/perf-<pid>.map > named.out and
# callgrind_annotate [--inclusive=yes] named.out. (--perf-basic-prof also writes a V8 log: --logfile keeps it out of
# the checkout.) --no-turbo-inlining keeps each function its own; the counts are then a little above a plain run.
import bisect
import re
import sys

out_file, map_file = sys.argv[1], sys.argv[2]

entries = []
with open(map_file) as f:
    for line in f:
        parts = line.rstrip('\n').split(' ', 2)
        if len(parts) < 3:
            continue
        start, size = int(parts[0], 16), int(parts[1], 16)
        entries.append((start, start + size, parts[2]))
entries.sort()
# A later entry at the same place (code moved or replaced) wins: keep the last one per start.
dedup = {}
for s, e, n in entries:
    dedup[s] = (e, n)
starts = sorted(dedup)
ADDR = re.compile(r'^(c?fn=\(\d+\)) 0x([0-9a-f]+)$')


def name_of(addr):
    i = bisect.bisect_right(starts, addr) - 1
    if i >= 0:
        end, name = dedup[starts[i]]
        if addr < end:
            # "JS:*relayCall file:line:col" → keep the name and the place, drop the tier marks V8 adds.
            return re.sub(r'^(JS|LazyCompile|Function):[*~^+]?', '', name).replace(' ', '@')
    return None


with open(out_file) as f:
    for line in f:
        m = ADDR.match(line.rstrip('\n'))
        if m:
            n = name_of(int(m.group(2), 16))
            if n:
                line = f'{m.group(1)} {n}\n'
        sys.stdout.write(line)
