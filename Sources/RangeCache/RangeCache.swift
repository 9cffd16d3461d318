// RangeCache: see DESIGN.md for what this module owns.
enum RangeCacheModule {}
