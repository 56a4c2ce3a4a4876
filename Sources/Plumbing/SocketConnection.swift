import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

/// Where HTTPS trusts certificates: the system's trust store, and the CA that `--cacert FILE`
/// adds for a private or self-signed server.
public final class TLSTrust: Sendable {
  /// The process's one setting.
  public static let shared = TLSTrust()
  private let file = Mutex<String?>(nil)
  /// The client contexts made so far, by CA file: a context reads the trust store once.
  private let contexts = Mutex<[String: NIOSSLContext]>([:])

  /// A PEM file of CA certificates trusted besides the system's, or nil.
  public var caFile: String? {
    get { file.withLock { $0 } }
    set { file.withLock { $0 = newValue } }
  }

  /// The client context that trusts the system's store and `caFile`: TLS 1.2 at least, the
  /// certificate and the host name verified.
  func context(caFile: String?) throws(TLSError) -> NIOSSLContext {
    let key = caFile ?? ""
    if let made = contexts.withLock({ $0[key] }) { return made }
    var configuration = TLSConfiguration.makeClientConfiguration()
    configuration.minimumTLSVersion = .tlsv12
    configuration.certificateVerification = .fullVerification
    if let caFile { configuration.additionalTrustRoots = [.file(caFile)] }
    do {
      let made = try NIOSSLContext(configuration: configuration)
      contexts.withLock { $0[key] = made }
      return made
    } catch {
      throw TLSError(
        description: "cannot use the CA file '\(TerminalText.escaped(key))' (\(error))")
    }
  }
}

/// Why a connection could not be made, in the system's words (a name that does not resolve, a
/// network that cannot be reached).
public struct SocketError: Error, Equatable, CustomStringConvertible {
  /// The reason, in one line.
  public let description: String
}

/// Why a TLS handshake failed: the certificate, the host name or the handshake itself.
public struct TLSError: Error, Equatable, CustomStringConvertible {
  /// The reason, in one line.
  public let description: String
}

/// The event loop every client connection runs on, started by the first request: start-up
/// makes no thread for it.
enum ClientLoop {
  static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
}

/// One connection, plain or over TLS, made by NIOPosix's `ClientBootstrap` and swift-nio-ssl's
/// `NIOSSLClientHandler`, and used by one exchange at a time from the thread that waits for its
/// answer: `write` hands bytes to the event loop, `read` waits for what the event loop received.
public final class SocketConnection: Sendable {
  private let inbox: Inbox

  /// The framer of this connection's exchanges, kept while its responses end exactly.
  ///
  /// Only the exchange using the connection touches it.
  public var framer: HTTPFramer? {
    get { inbox.framer.take() }
    set { inbox.framer.keep(newValue) }
  }

  private init(_ inbox: Inbox) { self.inbox = inbox }

  /// A connection nobody holds any more is closed: its channel and its handlers hold each other
  /// until the channel closes.
  deinit { inbox.abandon() }

  /// The name lookup connections use instead of the system's, for tests; nil for the system's.
  public static let resolver = Mutex<(any Resolver & Sendable)?>(nil)

  /// A new connection to `host:port`, made before `deadline` unless `control` is cancelled.
  ///
  /// `host` is the canonical host (`HTTPTransport.canonicalHost`), without brackets. Over TLS
  /// when `tls` is set: the certificate is checked against the system's store and `caFile`, and
  /// against the host name, or against the address for an IP address; the handshake ends within
  /// the same deadline.
  public static func connect(
    host: String, port: Int, tls: Bool, caFile: String?, deadline: UInt64,
    control: ExchangeControl
  ) -> Result<SocketConnection, Error> {
    let now = DispatchTime.now().uptimeNanoseconds
    guard now < deadline else { return .failure(TransportError.timedOut) }
    let context: NIOSSLContext?
    do {
      context = tls ? try TLSTrust.shared.context(caFile: caFile) : nil
    } catch {
      return .failure(error)
    }
    // SNI and the name check take a name; an address is checked against the peer's address.
    let address = try? SocketAddress(ipAddress: host, port: port)
    let serverName = address == nil ? host : nil
    let inbox = Inbox()
    let quickAck = Platform.quickAck
    let bootstrap = ClientBootstrap(group: ClientLoop.group)
      .connectTimeout(.nanoseconds(Int64(clamping: deadline - now)))
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          let pipeline = channel.pipeline.syncOperations
          if let quickAck { try pipeline.addHandler(QuickAckHandler(option: quickAck)) }
          if let context {
            try pipeline.addHandler(
              NIOSSLClientHandler(context: context, serverHostname: serverName))
          }
          try pipeline.addHandler(RelayHandler(inbox: inbox, isTLS: context != nil))
        }
      }
    let connecting: EventLoopFuture<Channel>
    if let resolver = resolver.withLock({ $0 }) {
      connecting = bootstrap.resolver(resolver).connect(host: host, port: port)
    } else if let address {
      // An address needs no lookup: no resolver thread, no Happy Eyeballs race of one.
      connecting = bootstrap.connect(to: address)
    } else {
      connecting = bootstrap.connect(host: host, port: port)
    }
    connecting.whenFailure { inbox.finish($0) }
    let connection = SocketConnection(inbox)
    guard control.attach(connection) else {
      connection.close()
      return .failure(TransportError.cancelled)
    }
    defer { control.detach() }
    switch inbox.waitUntilReady(deadline: deadline, control: control) {
    case nil:
      return .success(connection)
    case let failure?:
      connection.close()
      return .failure(describe(failure, host: host, port: port))
    }
  }

  /// A connection's failure as what it means for the user.
  private static func describe(_ error: Error, host: String, port: Int) -> Error {
    let server = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    switch error {
    case let error as TransportError: return error
    case ChannelError.connectTimeout: return TransportError.timedOut
    case let error as IOError where error.errnoCode == ECONNREFUSED: return TransportError.refused
    case let error as NIOConnectionError:
      let failures = error.connectionErrors.map(\.error)
      if failures.isEmpty {
        return SocketError(description: "cannot resolve \(TerminalText.escaped(host))")
      }
      if failures.allSatisfy({ ($0 as? IOError)?.errnoCode == ECONNREFUSED }) {
        return TransportError.refused
      }
      return SocketError(
        description:
          "cannot connect to \(server) (\(failures.map { "\($0)" }.joined(separator: "; ")))")
    case let error as NIOSSLExtraError where error == .failedToValidateHostname:
      return TLSError(
        description: "the certificate of \(server) was not accepted: it is not for "
          + (host.contains(":") || (try? SocketAddress(ipAddress: host, port: port)) != nil
            ? "the address \(host)" : "the name \(host)"))
    case NIOSSLError.handshakeFailed(let reason):
      let text = "\(reason)"
      if text.contains("CERTIFICATE_VERIFY_FAILED") {
        return TLSError(
          description: "the certificate of \(server) was not accepted: it is self-signed, "
            + "expired, or signed by a CA that is not trusted (certificate verify failed)")
      }
      return TLSError(description: "the TLS handshake with \(server) failed (\(text))")
    case let error as NIOSSLError:
      return TLSError(description: "the TLS handshake with \(server) failed (\(error))")
    default:
      return SocketError(description: "cannot connect to \(server) (\(error))")
    }
  }

  /// What one wait for bytes gave.
  public enum Received {
    /// Bytes, decrypted when the connection is TLS.
    case bytes(ByteBuffer)
    /// The server closed the connection.
    case end
    /// The connection failed, or was aborted.
    case failed
    /// The deadline passed first.
    case timedOut
    /// The exchange was cancelled first.
    case cancelled
  }

  /// Waits for the next bytes, before `deadline` unless `control` is cancelled.
  public func read(deadline: UInt64, control: ExchangeControl) -> Received {
    inbox.next(deadline: deadline, control: control)
  }

  /// Hands all of `bytes` to the connection; false when it is closed already.
  ///
  /// A write that fails later ends the connection, which the next read reports.
  public func write(_ bytes: [UInt8]) -> Bool {
    guard let channel = inbox.channel else { return false }
    channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
    return true
  }

  /// Whether a kept connection has nothing waiting to be read: one the server closed, or one
  /// with bytes no request asked for, must not carry the next request.
  ///
  /// The event loop learns that the server closed a connection when it next runs; a connection
  /// that waited more than 2 ms is asked after one turn of its event loop, which handles what
  /// arrived before it (at most 100 ms), so that a close that came while it waited is seen.
  public var isQuiet: Bool {
    if inbox.idleNanoseconds > 2_000_000, let loop = inbox.channel?.eventLoop {
      let turned = DispatchSemaphore(value: 0)
      loop.execute { turned.signal() }
      _ = turned.wait(timeout: .now() + .milliseconds(100))
    }
    return inbox.isQuiet
  }

  /// Makes a blocked read return: the exchange was cancelled.
  public func abort() { inbox.abandon() }

  /// Closes the connection; later calls do nothing.
  public func close() { inbox.abandon() }
}

/// What the event loop hands the thread that waits on a connection: the bytes received, whether
/// the connection is ready (connected, and past its handshake) and whether it ended.
///
/// At most `highWater` bytes wait: past them the connection stops reading until the waiting
/// thread has taken them.
///
/// The event loop wakes the waiting thread after it unlocks: woken inside the lock, the waiting
/// thread would at once block on the lock the event loop still holds, and each answer would cost
/// two more system calls and a switch between the threads.
final class Inbox: @unchecked Sendable {
  // @unchecked: every stored var is read and written only while `condition` is locked; `framer`
  // is used by the one exchange that holds the connection.
  static let highWater = 1 << 20

  private let condition = NSCondition()
  private var chunks: [ByteBuffer] = []
  private var first = 0
  private var buffered = 0
  private var ready = false
  private var ended = false
  private var failure: Error?
  private var paused = false
  private var abandoned = false
  private var storedChannel: Channel?
  /// The uptime when the waiting thread last received something.
  private var lastReceived = DispatchTime.now().uptimeNanoseconds
  /// The framer kept with the connection.
  let framer = KeptFramer()

  /// The connection's channel, once connected and while not abandoned.
  var channel: Channel? { condition.withLock { abandoned ? nil : storedChannel } }

  /// A connection became active; whether it is this inbox's.
  ///
  /// The first one is: a name with several addresses makes an attempt per address (NIOPosix's Happy Eyeballs), and closes the
  /// others once one connects. A connection that is not plain becomes ready after its handshake.
  func activate(_ channel: Channel, plain: Bool) -> Bool {
    let taken = condition.withLock {
      guard storedChannel == nil, !abandoned else { return false }
      storedChannel = channel
      if plain { ready = true }
      return true
    }
    if taken { condition.broadcast() }
    return taken
  }

  /// The connection may carry requests: past its TLS handshake.
  func markReady() {
    condition.withLock { ready = true }
    condition.broadcast()
  }

  /// Bytes from the event loop; whether reading should pause until they are taken.
  func deliver(_ buffer: ByteBuffer) -> Bool {
    let pause = condition.withLock {
      chunks.append(buffer)
      buffered += buffer.readableBytes
      if buffered > Self.highWater, !paused {
        paused = true
        return true
      }
      return false
    }
    condition.broadcast()
    return pause
  }

  /// The connection ended, with `error` when it failed; the first error counts.
  func finish(_ error: Error?) {
    condition.withLock {
      if failure == nil, let error { failure = error }
      ended = true
    }
    condition.broadcast()
  }

  /// Closes the connection from any thread: a waiting read returns.
  func abandon() {
    let channel = condition.withLock {
      abandoned = true
      ended = true
      return storedChannel
    }
    condition.broadcast()
    channel?.close(promise: nil)
  }

  /// How long ago the waiting thread last received something, in nanoseconds.
  var idleNanoseconds: UInt64 {
    let since = condition.withLock { lastReceived }
    return DispatchTime.now().uptimeNanoseconds &- since
  }

  /// Whether nothing waits to be read and the connection is open.
  var isQuiet: Bool {
    condition.withLock {
      ready && !ended && !abandoned && failure == nil && first == chunks.count
    }
  }

  /// Waits until the connection is ready; nil then, else why it is not.
  func waitUntilReady(deadline: UInt64, control: ExchangeControl) -> Error? {
    condition.withLock {
      while true {
        if let failure { return failure }
        if ready { return nil }
        if ended { return TransportError.dropped }
        if let stop = stopped(deadline: deadline, control: control) { return stop }
        wait(until: deadline)
      }
    }
  }

  /// Waits for the next bytes, the end, or the deadline.
  func next(deadline: UInt64, control: ExchangeControl) -> SocketConnection.Received {
    let (received, resume) = condition.withLock { () -> (SocketConnection.Received, Channel?) in
      while true {
        if first < chunks.count {
          let buffer = chunks[first]
          first += 1
          if first == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            first = 0
          }
          buffered -= buffer.readableBytes
          var resume: Channel?
          if paused, buffered < Self.highWater / 2 {
            paused = false
            resume = storedChannel
          }
          lastReceived = DispatchTime.now().uptimeNanoseconds
          return (.bytes(buffer), resume)
        }
        if abandoned { return (control.isCancelled ? .cancelled : .failed, nil) }
        if failure != nil { return (.failed, nil) }
        if ended { return (.end, nil) }
        if let stop = stopped(deadline: deadline, control: control) {
          return (stop == .cancelled ? .cancelled : .timedOut, nil)
        }
        wait(until: deadline)
      }
    }
    _ = resume?.setOption(ChannelOptions.autoRead, value: true)
    return received
  }

  /// Why waiting must stop now, if it must: called with the lock held.
  private func stopped(deadline: UInt64, control: ExchangeControl) -> TransportError? {
    if control.isCancelled { return .cancelled }
    if DispatchTime.now().uptimeNanoseconds >= deadline { return .timedOut }
    return nil
  }

  /// Waits for a change, at most 20 ms at a time, so that a Ctrl-C that the exchange learns of
  /// only by asking ends it at once: called with the lock held.
  private func wait(until deadline: UInt64) {
    let now = DispatchTime.now().uptimeNanoseconds
    let slice = min(20_000_000, deadline > now ? deadline - now : 0)
    _ = condition.wait(until: Date(timeIntervalSinceNow: Double(slice) / 1_000_000_000))
  }
}

/// The framer a connection keeps between exchanges.
final class KeptFramer: @unchecked Sendable {
  // @unchecked: only the exchange that holds the connection (one thread at a time, handed over
  // through the pool's lock) keeps or takes it.
  private var framer: HTTPFramer?

  func take() -> HTTPFramer? { framer }
  func keep(_ framer: HTTPFramer?) { self.framer = framer }
}

/// Asks for quick acknowledgements before every read (`Platform.quickAck`).
final class QuickAckHandler: ChannelOutboundHandler {
  typealias OutboundIn = Any
  private let option: ChannelOptions.Types.SocketOption

  init(option: ChannelOptions.Types.SocketOption) { self.option = option }

  func read(context: ChannelHandlerContext) {
    try? context.channel.syncOptions?.setOption(option, value: 1)
    context.read()
  }
}

/// Passes what a connection receives to its `Inbox`, on the event loop.
///
/// Only the connection the inbox took (the first to become active) speaks to it.
final class RelayHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  private let inbox: Inbox
  private let isTLS: Bool
  private var isOwner = false

  init(inbox: Inbox, isTLS: Bool) {
    self.inbox = inbox
    self.isTLS = isTLS
  }

  func channelActive(context: ChannelHandlerContext) {
    isOwner = inbox.activate(context.channel, plain: !isTLS)
    if !isOwner { context.close(promise: nil) }
    context.fireChannelActive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard isOwner else { return }
    if inbox.deliver(unwrapInboundIn(data)) {
      try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    if isOwner { inbox.finish(nil) }
    context.fireChannelInactive()
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if isOwner, case .handshakeCompleted? = event as? TLSUserEvent { inbox.markReady() }
    context.fireUserInboundEventTriggered(event)
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    guard isOwner else {
      context.close(promise: nil)
      return
    }
    // A server that closes without TLS's close_notify ends the stream as a plain close does:
    // a body read to the close ends there, as curl and Python read it.
    if case NIOSSLError.uncleanShutdown? = error as? NIOSSLError {
      inbox.finish(nil)
    } else {
      inbox.finish(error)
    }
    context.close(promise: nil)
  }
}
