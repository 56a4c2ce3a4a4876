import Domain
import Foundation
import Testing

@testable import Commands

@Suite("Pictures")
struct PictureTests {
  @Test("a trace is a sequence diagram: a lifeline per controller, a call and a reply per span")
  func sequence() throws {
    // Given a traced call from ProductUpdater to NetworkController, which failed
    let tracer = Tracer()
    tracer.enable()
    tracer.withSpan("ProductUpdater", "updateProduct(from:)") { _ in
      tracer.withSpan("NetworkController", "GET /products/42") { span in
        span.setAttribute("status", "404")
      }
      tracer.event("ProductUpdater", "completion(.failure)")
    }
    // When it is drawn
    let svg = SequencePicture.svg(tracer.recorded, timings: false)
    // Then each participant has one lifeline, in order of appearance
    let lifelines = svg.components(separatedBy: #"<g class="lifeline" data-component=""#)
      .dropFirst()
      .map { String($0.prefix { $0 != "\"" }) }
    #expect(lifelines == ["User", "ProductUpdater", "NetworkController"])
    // And the calls, the reply with its status, and the note are there, without durations
    #expect(svg.contains(">updateProduct(from:)</text>"))
    #expect(svg.contains(">GET /products/42</text>"))
    #expect(svg.contains(">404</text>"))
    #expect(svg.contains(">completion(.failure)</text>"))
    #expect(!svg.contains(" ms<") && !svg.contains(" µs<"))
    #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
    #expect(svg.hasSuffix("</svg>"))
  }

  @Test("the factory graph marks what the last command built and what it was handed again")
  func factoryMarks() {
    let factory = ApplicationFactory()
    let graph = factory.graph()
    let svg = FactoryPicture.svg(graph, marks: ["workspace": .new, "tracer": .reused])
    #expect(
      svg.contains(
        #"<g class="node new singleton origin_archsh" data-product="workspace" data-origin="archsh's own">"#
      ))
    #expect(
      svg.contains(
        #"<g class="node idle prototype origin_bdmodules" data-product="apiSessionManager" data-origin="BDModules (003)">"#
      ))
    #expect(svg.contains(#"<g class="node reused singleton origin_archsh" data-product="tracer""#))
    // Every wire runs from a column to one on its right: the graph is laid out in layers, each
    // product right of every product injected into it.
    let wires = svg.components(separatedBy: #"<path d="M"#).dropFirst()
    let drawn = Set(graph.nodes.map(\.component.name))
    let injections = graph.nodes.flatMap { $0.dependencies.filter(drawn.contains) }
    #expect(wires.count == injections.count)
    for wire in wires {
      let numbers = wire.prefix { $0 != "\"" }.split(whereSeparator: { $0 == " " || $0 == "C" })
        .compactMap { Double($0) }
      let (start, end) = (numbers.first ?? 0, numbers.dropLast().last ?? 0)
      #expect(end > start, "a wire runs right to left: M\(wire.prefix(60))")
    }
    #expect(svg.contains(#"data-product="productUpdater" "#))
    // Every product is drawn once.
    let nodes = svg.components(separatedBy: #"<g class="node "#).count - 1
    #expect(nodes == graph.nodes.count)
  }

  @Test("the board's factory picture draws only what the last command touched, built first, large")
  func factoryFocus() {
    let graph = ApplicationFactory().graph()
    let svg = FactoryPicture.svg(
      graph, marks: ["tracer": .reused, "workspace": .new, "logger": .new], focus: true)
    let products = svg.components(separatedBy: #"data-product=""#).dropFirst()
      .map { String($0.prefix { $0 != "\"" }) }
    #expect(products == ["workspace", "logger", "tracer"])
    #expect(svg.contains(".name.big { font-size: 24px; }"))
    #expect(svg.contains(">BDModules (003)</text>"))
    #expect(svg.contains(">archsh's own</text>"))
    // Without marks there is nothing to focus on: the whole graph is drawn.
    let whole = FactoryPicture.svg(graph, focus: true)
    #expect(whole.components(separatedBy: #"<g class="node "#).count - 1 == graph.nodes.count)
  }

  @Test("text in a picture is escaped")
  func escaping() {
    var svg = SVG()
    svg.text(#"<script>"x" & y</script>"#, x: 1, y: 2, classes: "label")
    let document = svg.document(width: 10, height: 10, label: "a <b>", style: "", scope: "s")
    #expect(document.contains("&lt;script&gt;&quot;x&quot; &amp; y&lt;/script&gt;"))
    #expect(!document.contains("<script>"))
  }
}
