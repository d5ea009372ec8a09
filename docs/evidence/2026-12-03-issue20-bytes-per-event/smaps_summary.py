#!/usr/bin/env python3
"""Summarises a /proc/PID/smaps copy: resident kB by kind (anonymous heap and arenas, each
shared library / font file, stacks), so the resident set can be attributed."""
import collections, re, sys

for path in sys.argv[1:]:
    maps, cur = [], None
    for line in open(path):
        if re.match(r'^[0-9a-f]+-[0-9a-f]+ ', line):
            parts = line.split()
            lo, hi = (int(x, 16) for x in parts[0].split('-'))
            cur = {'name': parts[5] if len(parts) > 5 else '[anon]', 'size': hi - lo}
            maps.append(cur)
        else:
            m = re.match(r'^(\w+):\s+(\d+) kB', line)
            if m and cur is not None:
                cur[m.group(1)] = int(m.group(2))
    total = sum(m.get('Rss', 0) for m in maps)
    anon = sum(m.get('Anonymous', 0) for m in maps)
    files = collections.Counter()
    for m in maps:
        if not m['name'].startswith('['):
            files[m['name'].split('/')[-1]] += m.get('Rss', 0)
    print(f'{path}: Rss {total} kB = anonymous {anon} kB + file-backed {total - anon} kB')
    big = sorted((m for m in maps if m['name'] == '[anon]' and m.get('Rss', 0) >= 1024), key=lambda m: -m['Rss'])
    print('  anonymous mappings >= 1 MiB resident (kB):', ', '.join(str(m['Rss']) for m in big),
          f"(sum {sum(m['Rss'] for m in big)})")
    other = anon - sum(m['Rss'] for m in big)
    print(f'  other anonymous (brk heap, small arenas, stacks, Qt): {other} kB')
    print('  file-backed, largest:', ', '.join(f'{n} {v}' for n, v in files.most_common(8)),
          f'(all files {sum(files.values())} kB)')
