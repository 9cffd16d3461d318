// Remotes: see DESIGN.md for what this module owns.
enum RemotesModule {}
