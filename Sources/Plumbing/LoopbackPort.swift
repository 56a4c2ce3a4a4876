/// A port on 127.0.0.1 that a server is about to listen on.
public enum LoopbackPort {
  /// Whether a listening socket could bind `port` on 127.0.0.1 now, with SO_REUSEADDR as the
  /// servers use it, so that a port whose last connections are in TIME_WAIT counts as free.
  ///
  /// The demo API and the board ask before they start on a chosen port, so that a taken port is
  /// told apart from a server that could not start for another reason; a port taken in the moment
  /// between the question and the bind still fails the bind, with the server's own error.
  public static func isFree(_ port: Int) -> Bool { Platform.canBindLoopback(port) }
}
