// A libFuzzer target over the response path: bytes from a server in, a response or an error out.
// The first byte chooses how many bytes each read hands over (1 to 256), so that every split of a
// head, a chunk or a status line is tried; the rest is what the server sent. Built by Fuzz/run.sh
// with `swift build --sanitize=fuzzer` (the target exists only when ARCHSH_FUZZ=1).
import Plumbing

/// libFuzzer's entry: one input, framed as a server's reply.
@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  guard count > 0 else { return 0 }
  let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
  let readSize = Int(bytes[0]) + 1
  // A small body limit, so that the limits' paths are reached by small inputs.
  _ = HTTPResponseBytes.describe(Array(bytes.dropFirst()), readSize: readSize, bodyLimit: 4096)
  return 0
}
