import Foundation

/// Seed 000's EmptyStateViewController: what a list shows while it has nothing, a message and a
/// button; a tap on the button runs the view model's action handler.
///
/// DataSourceController's delegate gives it as the table view's background while `totalRowCount`
/// is 0 (`backgroundEmptyView(for:)`), so the empty state is this controller, not a label.
public final class EmptyStateViewController {
  /// What it shows and what its button does.
  public struct ViewModel {
    /// The message.
    public var message: String
    /// The button's title; nil shows no button.
    public var actionText: String?
    /// What a tap on the button runs; it says what it did.
    public var actionHandler: (() throws -> String)?

    /// Creates a view model.
    public init(
      message: String, actionText: String? = nil, actionHandler: (() throws -> String)? = nil
    ) {
      self.message = message
      self.actionText = actionText
      self.actionHandler = actionHandler
    }
  }

  /// The view model it was built with.
  public let viewModel: ViewModel

  /// Creates the controller.
  public init(viewModel: ViewModel) {
    self.viewModel = viewModel
  }

  /// Whether it shows a button that does something.
  public var hasButton: Bool { viewModel.actionText != nil && viewModel.actionHandler != nil }

  /// A tap on the button: runs the action handler and returns what it did.
  public func tapActionButton() throws -> String {
    guard viewModel.actionText != nil, let handler = viewModel.actionHandler else {
      throw DataSourceError.noEmptyStateButton
    }
    return try handler()
  }
}

/// What the empty state's button of a stored data source does.
public enum EmptyStateAction: Equatable, Sendable, CustomStringConvertible {
  /// What it does, in the seed's words.
  public var description: String {
    switch self {
    case .addRow(let text): return "add(row: '\(text)', at: [0, 0])"
    case .loadProducts: return "load the example app's products: update(allSections:)"
    }
  }

  /// Adds a first row with this text (add(row:at:) at [0, 0]).
  case addRow(String)
  /// Loads the example app's products into it, one section per family (update(allSections:)),
  /// fetched over HTTP the first time, as Discover's list is.
  case loadProducts

  /// How the workspace keeps it.
  var stored: String {
    switch self {
    case .addRow(let text): return "add-row:" + text
    case .loadProducts: return "products"
    }
  }

  init?(stored: String?) {
    guard let stored else { return nil }
    if stored == "products" {
      self = .loadProducts
    } else if stored.hasPrefix("add-row:") {
      self = .addRow(String(stored.dropFirst(8)))
    } else {
      return nil
    }
  }
}

/// A stored data source's empty state: its message, and the button's title and action.
public struct EmptyStateSettings: Equatable, Sendable {
  /// The message.
  public var message: String
  /// The button's title, when it has one.
  public var actionText: String?
  /// What the button does, when it has one.
  public var action: EmptyStateAction?

  /// Creates settings.
  public init(message: String, actionText: String? = nil, action: EmptyStateAction? = nil) {
    self.message = message
    self.actionText = actionText
    self.action = action
  }
}
