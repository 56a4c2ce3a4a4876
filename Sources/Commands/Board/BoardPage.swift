/// The board's page: one self-contained document (HTML, CSS, JavaScript), served by archsh.
///
/// `__NONCE__` is replaced by the Content-Security-Policy nonce of each response.
enum BoardPage {
  static let html = #"""
    <!doctype html><html><head><meta charset="utf-8"><title>archsh board</title></head>
    <body><div id="status">placeholder</div></body></html>
    """#
}
