import DemoAPI
import Foundation
import Testing

@testable import Domain

@Suite("Accounts")
struct AccountsTests {
  /// A clock the test moves.
  private final class Clock: @unchecked Sendable {
    var now = Date(timeIntervalSince1970: 1_800_000_000)
  }

  @Test("an access token lives for the configured lifetime; added accounts can log in")
  func lifetime() throws {
    let clock = Clock()
    let accounts = Accounts(tokenLifetime: 30, now: { clock.now })
    accounts.add(email: "grace@example.com", password: "cobol")
    let grant = try accounts.grant(
      username: "grace@example.com", password: "cobol", clientID: Accounts.clientID,
      clientSecret: Accounts.clientSecret
    ).get()
    #expect(grant.expiresIn == 30)
    clock.now += 29
    #expect(accounts.account(forAccessToken: grant.accessToken)?.email == "grace@example.com")
    clock.now += 1
    #expect(accounts.account(forAccessToken: grant.accessToken) == nil)
    accounts.tokenLifetime = 5
    let next = try accounts.refresh(
      token: grant.refreshToken, clientID: Accounts.clientID, clientSecret: Accounts.clientSecret
    ).get()
    #expect(next.expiresIn == 5)
    #expect(accounts.expireAccessTokens() == 1)
    #expect(accounts.account(forAccessToken: next.accessToken) == nil)
  }
}
