#!/usr/bin/env python3
"""A model of simhash_mih's merge policy (src/pg/index_am/lsm/mih_am_merge.c), to choose how many big
runs to keep before measuring: N rows indexed, then M rows inserted in flushes of one pending limit;
small runs merge by size tiers (FANIN of a tier become one), and while more than K runs are big
(tier 3 and up) the two smallest merge; and once the biggest run (the base) holds FANIN big runs' rows
or more, every run merges into it when the others hold 1/S of its rows. A run of n rows costs a query the share of a table's 2^21
block values it holds, 1 - e^(-n / 2^21), of a full probe (a run's filter turns the other probes
away), plus a little for each run; the fresh index of all rows costs one. Prints, for each K, the
worst and the mean cost over the inserts against the fresh index, the write amplification (rows
written into runs / rows inserted) and the biggest merge, without merges into the base (S = none)
and with S = 32, 16 (the policy built) and 8. K = none is the policy without the cap.

    bench/merge_model.py N M      e.g. bench/merge_model.py 10000000 50000000
"""
import math
import sys

LIMIT = 18656          # rows of the default pending_limit (256 kB)
FANIN = 4
BIG_TIER = 3
BLOCK_VALUES = 2 ** 21
PER_RUN = 0.01         # a run's directory search and filter tests, in full probes


def tier(n):
    t = 0
    while n >= LIMIT * FANIN and t < 30:
        n //= FANIN
        t += 1
    return t


def share(n):
    return 1 - math.exp(-n / BLOCK_VALUES)


def merge(runs, chosen):
    for n in chosen:
        runs.remove(n)
    runs.append(sum(chosen))
    return sum(chosen)


def small_merge(runs):
    """The FANIN smallest runs of the lowest small tier that has FANIN, or nothing."""
    for t in range(BIG_TIER):
        of_tier = sorted(n for n in runs if tier(n) == t)
        if len(of_tier) >= FANIN:
            return of_tier[:FANIN]
    return None


def big_merge(runs, k):
    big = sorted(n for n in runs if tier(n) >= BIG_TIER)
    return big[:2] if k is not None and len(big) > k else None


def base_merge(runs, s):
    base = max(runs)
    due = s is not None and len(runs) > 1 and base >= FANIN * LIMIT * FANIN ** BIG_TIER and \
        (sum(runs) - base) * s >= base
    return list(runs) if due else None


def simulate(n, m, k, s):
    runs, written, inserted, worst, total, steps, biggest = [n], 0, 0, 0.0, 0.0, 0, 0
    while inserted < m:
        inserted += LIMIT
        runs.append(LIMIT)
        written += LIMIT
        while True:
            chosen = small_merge(runs) or base_merge(runs, s) or big_merge(runs, k)
            if not chosen:
                break
            biggest = max(biggest, merge(runs, chosen))
            written += sum(chosen)
        cost = (sum(share(r) for r in runs) + PER_RUN * len(runs)) / share(n + inserted)
        worst, total, steps = max(worst, cost), total + cost, steps + 1
    return worst, total / steps, written / inserted, biggest


def main():
    n, m = int(sys.argv[1]), int(sys.argv[2])
    print(f"N = {n:,}, M = {m:,} inserted")
    print("| big runs kept | merge into the base at 1/S | worst cost / fresh | mean | write amplification | biggest merge |")
    print("|---|---|---|---|---|---|")
    for k, s in ((None, None), (4, None), (3, None), (2, None), (3, 32), (3, 16), (3, 8)):
        worst, mean, wa, biggest = simulate(n, m, k, s)
        print(f"| {'none' if k is None else k} | {'none' if s is None else s} | {worst:.2f} | {mean:.2f} | "
              f"{wa:.2f} | {biggest / 1e6:.1f}M |")


if __name__ == "__main__":
    main()
