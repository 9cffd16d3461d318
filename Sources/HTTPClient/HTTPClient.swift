// HTTPClient: the HTTP transport every client module uses (see DESIGN.md).
enum HTTPClientModule {}
