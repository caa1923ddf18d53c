// No dependency: compiled standalone by Scripts/fuzz.

/// An object a remote lists: its name under the remote's root and its size in bytes.
public struct RemoteObject: Sendable, Hashable {
    /// The name, `/`-separated, under the remote's root.
    public var name: String
    /// The size the remote reports (checked again against the bytes it sends).
    public var size: Int

    /// An object with its name and size.
    public init(name: String, size: Int) {
        self.name = name
        self.size = size
    }
}
