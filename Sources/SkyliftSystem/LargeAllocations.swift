/// How the process's allocator treats large blocks (part buffers, read-ahead) that come and go by the megabyte.
public enum LargeAllocations {
    /// Blocks of 1 MiB and more are given back to the system as soon as they are freed. A server buffering parts
    /// of several uploads at once otherwise keeps every freed part in the heap of the thread that used it: with
    /// eight 8 MiB parts in flight its resident memory grew past 300 MiB, freed but never returned.
    public static func returnPromptly() { setLargeAllocationThreshold(1 << 20) }
}
