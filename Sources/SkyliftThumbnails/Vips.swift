import CVips

/// The libvips calls the maker uses, each returning Swift values and typed errors. libvips is started once
/// per process, with the loaders of outside files narrowed to the formats served (see ``policy``).
enum Vips {
    /// The loader classes left enabled: everything else that reads files (ImageMagick, PDF, SVG, OpenSlide,
    /// FITS, Matlab, raw vips files, …) is blocked, so a hostile file can only reach these decoders.
    static let allowedLoaders = ["VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp", "VipsForeignLoadNsgif",
                                 "VipsForeignLoadTiff", "VipsForeignLoadHeif"]

    /// Whether libvips started; its failure is reported by every call.
    static let started: Result<Void, ThumbnailError> = start()

    private static func start() -> Result<Void, ThumbnailError> {
        var problem = [CChar](repeating: 0, count: 512)
        guard skylift_vips_load(&problem, problem.count) == 0 else {
            return .failure(.unavailable(reason: String(decoding: problem.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        guard skylift_vips_init("skylift") == 0 else { return .failure(.unavailable(reason: lastError())) }
        policy()
        return .success(())
    }

    /// Settings for many independent small jobs on hostile input. No operation cache: thumbnails are never asked
    /// twice of libvips (the disk cache answers repeats), and cached operations would keep decoded images alive.
    /// One libvips thread per job: the maker runs several jobs side by side on its own threads, which keeps
    /// both the cores and the memory bounded by the executor's size.
    private static func policy() {
        skylift_vips_cache_set_max(0)
        skylift_vips_cache_set_max_mem(0)
        skylift_vips_concurrency_set(1)
        // Loaders libvips itself marks untrusted (ImageMagick, …), then every loader but the served ones.
        skylift_vips_block_untrusted_set(1)
        skylift_vips_operation_block_set("VipsForeignLoad", 1)
        for name in allowedLoaders { skylift_vips_operation_block_set(name, 0) }
    }

    /// libvips' error text (it keeps one buffer per process), emptied, trimmed to a line of at most 300 bytes.
    static func lastError() -> String {
        let text = skylift_vips_error_buffer().map { String(cString: $0) } ?? ""
        skylift_vips_error_clear()
        let line = text.split(separator: "\n").first.map(String.init) ?? "unknown error"
        return String(line.prefix(300))
    }

    /// Frees libvips' per-thread buffers; called at the end of each job on the maker's threads, which end
    /// when idle.
    static func endOfJob() {
        if case .success = started { skylift_vips_thread_shutdown() }
    }

    /// Drops Swift's reference to a libvips object (an image or a source).
    private static func unref(_ object: OpaquePointer) { skylift_vips_unref(UnsafeMutableRawPointer(object)) }

    /// A source reading the open file `fd` (libvips duplicates the descriptor; the caller keeps its own).
    private static func source(_ fd: Int32) -> Result<OpaquePointer, ThumbnailError> {
        guard let source = skylift_vips_source_new_from_descriptor(fd) else { return .failure(.undecodable(reason: lastError())) }
        return .success(source)
    }

    /// Width and height from the file's header, nothing decoded.
    static func dimensions(fd: Int32) -> Result<(width: Int, height: Int), ThumbnailError> {
        header(fd: fd) { image in (Int(skylift_vips_image_get_width(image)), Int(skylift_vips_image_get_height(image))) }
    }

    /// The named header fields present on the image (string values, as libvips renders EXIF tags).
    static func fields(fd: Int32, _ names: [String]) -> Result<[String: String], ThumbnailError> {
        header(fd: fd) { image in
            var found: [String: String] = [:]
            for name in names where skylift_vips_image_has_field(image, name) != 0 {
                var value: UnsafePointer<CChar>?
                if skylift_vips_image_get_string(image, name, &value) == 0, let value { found[name] = String(cString: value) }
            }
            skylift_vips_error_clear()
            return found
        }
    }

    private static func header<T>(fd: Int32, _ read: (OpaquePointer) -> T) -> Result<T, ThumbnailError> {
        if case let .failure(e) = started { return .failure(e) }
        return source(fd).flatMap { source in
            defer { unref(source) }
            guard let image = skylift_vips_header_source(source) else { return .failure(.undecodable(reason: lastError())) }
            defer { unref(image) }
            return .success(read(image))
        }
    }

    /// The JPEG thumbnail of the image in `fd` (orientation applied, alpha laid on white).
    static func thumbnail(fd: Int32, size: Int, quality: Int) -> Result<[UInt8], ThumbnailError> {
        if case let .failure(e) = started { return .failure(e) }
        return source(fd).flatMap { source in
            defer { unref(source) }
            var image: OpaquePointer?
            guard skylift_vips_thumbnail_source(source, &image, Int32(size)) == 0, let image else {
                return .failure(.undecodable(reason: lastError()))
            }
            return jpeg(image, quality: quality)
        }
    }

    /// The JPEG thumbnail of an encoded image held in memory (a poster frame).
    static func thumbnail(bytes: [UInt8], size: Int, quality: Int) -> Result<[UInt8], ThumbnailError> {
        if case let .failure(e) = started { return .failure(e) }
        var copy = bytes
        return copy.withUnsafeMutableBytes { raw in
            var image: OpaquePointer?
            guard skylift_vips_thumbnail_buffer(raw.baseAddress, raw.count, &image, Int32(size)) == 0, let image else {
                return .failure(.undecodable(reason: lastError()))
            }
            return jpeg(image, quality: quality)
        }
    }

    /// Encodes `image` (and releases it).
    private static func jpeg(_ image: OpaquePointer, quality: Int) -> Result<[UInt8], ThumbnailError> {
        var flat = image
        if skylift_vips_image_hasalpha(image) != 0 {
            var out: OpaquePointer?
            guard skylift_vips_flatten_white(image, &out) == 0, let out else {
                unref(image)
                return .failure(.undecodable(reason: lastError()))
            }
            unref(image)
            flat = out
        }
        defer { unref(flat) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard skylift_vips_jpeg_buffer(flat, &buffer, &length, Int32(quality)) == 0, let buffer else {
            return .failure(.undecodable(reason: lastError()))
        }
        defer { skylift_vips_free(buffer) }
        return .success(Array(UnsafeRawBufferPointer(start: buffer, count: length)))
    }
}
