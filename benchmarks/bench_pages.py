"""Fetch every page of a 2,000-row players list, sequentially and with the client's bounded concurrency.

A local handler (httpx.MockTransport) answers in WIRE.md's page shape, 25 rows a page, after 50 ms of
latency per request, as a distant service would. Prints the median of several runs of each way and the ratio.

    python benchmarks/bench_pages.py [--rows 2000] [--latency 0.05] [--runs 5] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import httpx
import jwt

from rankterm.api.client import RankingClient

PER_PAGE = 25


def make_handler(rows: int, latency: float):
    token = jwt.encode({"exp": int(time.time()) + 3600}, "k" * 32, algorithm="HS256")
    pages = -(-rows // PER_PAGE)

    async def handler(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(latency)
        path = request.url.path.strip("/").split("/")
        if path[0] == "auth":
            return httpx.Response(200, json={"success": {"token": token}})
        page = int(path[1]) if len(path) > 1 else 1
        data = [
            {"id": f"p{i:010d}", "ghost": 0, "username": f"u{i}", "displayName": f"P{i}", "icon": ""}
            for i in range((page - 1) * PER_PAGE, min(page * PER_PAGE, rows))
        ]
        body = {
            "page": page,
            "totalPages": pages,
            "rowsForPage": PER_PAGE,
            "totalPlayers": rows,
            "data": data,
        }
        return httpx.Response(200, json={"success": body})

    return handler


async def fetch_all(rows: int, latency: float, concurrency: int) -> tuple[float, int]:
    http = httpx.AsyncClient(transport=httpx.MockTransport(make_handler(rows, latency)))
    client = RankingClient("http://bench.test/", key="k", secret="s", http=http, concurrency=concurrency)
    await client.authenticate()
    start = time.perf_counter()
    players = await client.players(refresh=True)
    elapsed = time.perf_counter() - start
    await http.aclose()
    assert len(players) == rows and players[-1].id == f"p{rows - 1:010d}"
    return elapsed, len(players)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    seq = [asyncio.run(fetch_all(args.rows, args.latency, 1))[0] for _ in range(args.runs)]
    con = [asyncio.run(fetch_all(args.rows, args.latency, args.concurrency))[0] for _ in range(args.runs)]
    pages = -(-args.rows // PER_PAGE)
    s, c = statistics.median(seq), statistics.median(con)
    print(f"rows={args.rows} pages={pages} latency={args.latency * 1000:.0f} ms runs={args.runs}")
    print(f"sequential (1 in flight):   median {s:.3f} s")
    print(f"concurrent ({args.concurrency} in flight):   median {c:.3f} s")
    print(f"speed-up: {s / c:.1f}x")


if __name__ == "__main__":
    main()
