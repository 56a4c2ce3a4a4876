/// A port on 127.0.0.1 that a server is about to listen on.
public enum LoopbackPort {
  /// Whether a listening socket could bind `port` on 127.0.0.1 now, with SO_REUSEADDR as the
  /// servers use it, so that a port whose last connections are in TIME_WAIT counts as free.
  ///
  /// The demo API and the board ask before they start on a chosen port. Hummingbird, given a port
  /// that is taken, fails inside its service group, and cancelling that group while it fails
  /// could deadlock (a lock in swift-async-algorithms' merge against the task's status lock, seen
  /// once in 20 runs of the port-moving test). Asking first makes that unlikely; a port taken in
  /// the moment between the question and the bind still goes through Hummingbird's failure.
  public static func isFree(_ port: Int) -> Bool { Platform.canBindLoopback(port) }
}
