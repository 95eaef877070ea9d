"""The client of a ranking service: RankingClient on httpx, its token cache, paging, transport, and the per-profile mirror with the reads that go through it."""
