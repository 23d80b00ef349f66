import { SqlClient, SqlSchema } from "@effect/sql"
import { countOf } from "../../platform/db/Rows.js"
import { Effect, Option, Schema } from "effect"
import { AccountId, KeyId } from "../../kernel/Ids.js"

/** A registered client (RFC 7591). */
export const ClientRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  redirect_uris: Schema.Array(Schema.String)
})
export type ClientRow = typeof ClientRow.Type

/** The signed-in account as the consent page names it. */
export const AccountRow = Schema.Struct({ email: Schema.String, api_access: Schema.Boolean })
export type AccountRow = typeof AccountRow.Type

/** An authorization code, as its exchange checks it. */
export const CodeRow = Schema.Struct({
  client_id: Schema.String,
  account_id: AccountId,
  key_id: KeyId,
  redirect_uri: Schema.String,
  code_challenge: Schema.String,
  resource: Schema.String,
  scope: Schema.NullOr(Schema.String),
  expires_at: Schema.DateFromSelf,
  /** The account still has API access and the code's key is still its live key. */
  live: Schema.Boolean
})
export type CodeRow = typeof CodeRow.Type

/** A grant as refreshing finds it by a refresh token. */
export const GrantRow = Schema.Struct({
  id: Schema.String,
  client_id: Schema.String,
  resource: Schema.String,
  scope: Schema.NullOr(Schema.String),
  refresh_expires_at: Schema.DateFromSelf
})
export type GrantRow = typeof GrantRow.Type

/** A connected client as the key page lists it. */
export const ConnectionRow = Schema.Struct({
  id: Schema.String,
  client_name: Schema.String,
  redirect_uris: Schema.Array(Schema.String),
  created_at: Schema.DateFromSelf,
  refreshed_at: Schema.DateFromSelf
})
export type ConnectionRow = typeof ConnectionRow.Type

/** A code as reuse detection finds it: the grant it was exchanged for, none before its exchange. */
const CodeGrant = Schema.Struct({ grant_id: Schema.NullOr(Schema.String) })
const GrantId = Schema.Struct({ id: Schema.String })
const RevokedGrant = Schema.Struct({ grant_id: Schema.String })
/** A live access token: the digest of its key and the resource it is for. */
const AccessTokenRow = Schema.Struct({ key_hash: Schema.Uint8ArrayFromSelf, resource: Schema.String })

/** The digests and expiries of a pair of tokens. */
export interface IssuedTokens {
  readonly accessHash: Uint8Array
  readonly accessExpiresAt: Date
  readonly refreshHash: Uint8Array
  readonly refreshExpiresAt: Date
}

export interface NewCode {
  readonly codeHash: Uint8Array
  readonly clientId: string
  readonly accountId: AccountId
  readonly redirectUri: string
  readonly codeChallenge: string
  readonly resource: string
  readonly scope: string | null
  readonly now: Date
  readonly expiresAt: Date
  /** Used codes are kept until then, for reuse detection; older ones are deleted. */
  readonly forgetBefore: Date
}

/** Live grants an account may hold; connecting one more ends the oldest (as sign-ins end the oldest session). */
export const maxGrantsPerAccount = 50
/** Exchanged refresh tokens remembered per grant for reuse detection. */
export const maxUsedRefreshTokens = 100

/**
 * The SQL of the OAuth authorization server (migration 0070). Grants, codes and tokens change
 * one grant's rows at a time; nothing here locks an account's meter row (lock order, 0017).
 */
export class OAuthRepo extends Effect.Service<OAuthRepo>()("adintel/OAuthRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findClient = SqlSchema.findOne({
      Request: Schema.String,
      Result: ClientRow,
      execute: (id) => sql`select id, name, redirect_uris from oauth_clients where id = ${id}`
    })

    const findAccount = SqlSchema.findOne({
      Request: AccountId,
      Result: AccountRow,
      execute: (id) => sql`select a.email, p.api_access from accounts a join plans p on p.name = a.plan where a.id = ${id}::uuid`
    })

    const useCode = SqlSchema.findOne({
      Request: Schema.Struct({ codeHash: Schema.Uint8ArrayFromSelf, now: Schema.DateFromSelf }),
      Result: CodeRow,
      execute: ({ codeHash, now }) =>
        sql`update oauth_codes c set used_at = ${now}
             where c.code_hash = ${codeHash} and c.used_at is null
         returning c.client_id, c.account_id::text, c.key_id::text, c.redirect_uri, c.code_challenge, c.resource, c.scope, c.expires_at,
                   exists (select from api_keys k join accounts a on a.id = k.account_id join plans p on p.name = a.plan
                            where k.id = c.key_id and k.revoked_at is null and p.api_access) as live`
    })

    const grantOfRefresh = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: GrantRow,
      execute: (hash) =>
        sql`select id::text, client_id, resource, scope, refresh_expires_at from oauth_grants where refresh_hash = ${hash}`
    })

    const connections = SqlSchema.findAll({
      Request: Schema.Struct({ accountId: AccountId, now: Schema.DateFromSelf }),
      Result: ConnectionRow,
      execute: ({ accountId, now }) =>
        sql`select g.id::text, c.name as client_name, c.redirect_uris, g.created_at, g.refreshed_at
              from oauth_grants g join oauth_clients c on c.id = g.client_id
             where g.account_id = ${accountId}::uuid and g.refresh_expires_at > ${now}
             order by g.seq desc`
    })

    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

    return {
      /** Clients registered before `before` and never authorized are forgotten; how many recent ones are left. */
      prunePendingClients: (before: Date) =>
        Effect.gen(function*() {
          yield* sql`delete from oauth_clients where authorized_at is null and registered_at < ${before}`
          return yield* countOf(sql`select count(*)::int as n from oauth_clients where authorized_at is null`)
        }).pipe(Effect.orDie),

      /** Clients registered from `address` since `since` (migration 0075). */
      registeredFrom: (address: string, since: Date) =>
        countOf(sql`select count(*)::int as n from oauth_clients where registered_from = ${address} and registered_at > ${since}`).pipe(Effect.orDie),

      insertClient: (client: { readonly id: string; readonly name: string; readonly redirectUris: ReadonlyArray<string>; readonly now: Date; readonly from: string }) =>
        sql`insert into oauth_clients (id, name, redirect_uris, registered_at, registered_from)
            values (${client.id}, ${client.name}, ${client.redirectUris}::text[], ${client.now}, ${client.from})`.pipe(Effect.asVoid, Effect.orDie),

      findClient: (id: string) => Effect.orDie(findClient(id)),

      findAccount: (id: AccountId) => Effect.orDie(findAccount(id)),

      /**
       * A code for the account's live key; false when the account has no live key. The client
       * counts as authorized from now on; codes expired before `forgetBefore` are deleted.
       */
      insertCode: (code: NewCode) =>
        Effect.gen(function*() {
          yield* sql`delete from oauth_codes where expires_at < ${code.forgetBefore}`
          const inserted = yield* sql`
            insert into oauth_codes (code_hash, client_id, account_id, key_id, redirect_uri, code_challenge, resource, scope, expires_at)
            select ${code.codeHash}, ${code.clientId}, ${code.accountId}::uuid, k.id, ${code.redirectUri}, ${code.codeChallenge},
                   ${code.resource}, ${code.scope}, ${code.expiresAt}
              from api_keys k where k.account_id = ${code.accountId}::uuid and k.revoked_at is null
            returning 1`
          if (inserted.length === 0) return false
          yield* sql`update oauth_clients set authorized_at = ${code.now} where id = ${code.clientId} and authorized_at is null`
          return true
        }).pipe(Effect.orDie),

      /** Marks a code used, once: its row the first time, none afterwards (or for an unknown code). */
      useCode: (codeHash: Uint8Array, now: Date) => Effect.orDie(useCode({ codeHash, now })),

      /** A code presented again (RFC 6749 4.1.2): the grant it was exchanged for is revoked. Whether the code was known. */
      codeReused: (codeHash: Uint8Array) =>
        Effect.gen(function*() {
          const code = yield* SqlSchema.findOne({
            Request: Schema.Void,
            Result: CodeGrant,
            execute: () => sql`select grant_id::text from oauth_codes where code_hash = ${codeHash}`
          })(undefined)
          const grant = Option.flatMap(code, (row) => Option.fromNullable(row.grant_id))
          if (Option.isSome(grant)) yield* sql`delete from oauth_grants where id = ${grant.value}::uuid`
          return Option.isSome(code)
        }).pipe(Effect.orDie),

      /**
       * A grant for an exchanged code, recorded on the code; the account's oldest grants beyond
       * `maxGrantsPerAccount` end.
       */
      insertGrant: (grant: IssuedTokens & { readonly codeHash: Uint8Array; readonly code: CodeRow; readonly now: Date }) =>
        sql.withTransaction(Effect.gen(function*() {
          const row = yield* SqlSchema.single({
            Request: Schema.Void,
            Result: GrantId,
            execute: () => sql`
            insert into oauth_grants (client_id, account_id, key_id, resource, scope, created_at, refreshed_at,
                                      access_hash, access_expires_at, refresh_hash, refresh_expires_at)
            values (${grant.code.client_id}, ${grant.code.account_id}::uuid, ${grant.code.key_id}::uuid, ${grant.code.resource},
                    ${grant.code.scope}, ${grant.now}, ${grant.now}, ${grant.accessHash}, ${grant.accessExpiresAt},
                    ${grant.refreshHash}, ${grant.refreshExpiresAt})
            returning id::text`
          })(undefined)
          yield* sql`update oauth_codes set grant_id = ${row.id}::uuid where code_hash = ${grant.codeHash}`
          yield* sql`delete from oauth_grants where id in (
                       select id from oauth_grants where account_id = ${grant.code.account_id}::uuid
                        order by seq desc offset ${maxGrantsPerAccount})`
        })).pipe(Effect.orDie),

      grantOfRefresh: (hash: Uint8Array) => Effect.orDie(grantOfRefresh(hash)),

      /**
       * Rotates a grant's tokens if `previous` is still its refresh token and its account may
       * still hold tokens; the old refresh token is remembered as used. Whether it rotated.
       */
      rotate: (grantId: string, previous: Uint8Array, next: IssuedTokens, now: Date) =>
        sql.withTransaction(Effect.gen(function*() {
          const rotated = yield* sql`
            update oauth_grants g
               set access_hash = ${next.accessHash}, access_expires_at = ${next.accessExpiresAt},
                   refresh_hash = ${next.refreshHash}, refresh_expires_at = ${next.refreshExpiresAt}, refreshed_at = ${now}
             where g.id = ${grantId}::uuid and g.refresh_hash = ${previous}
               and exists (select from api_keys k join accounts a on a.id = k.account_id join plans p on p.name = a.plan
                            where k.id = g.key_id and k.revoked_at is null and p.api_access)
            returning 1`
          if (rotated.length === 0) return false
          yield* sql`insert into oauth_used_refresh_tokens (token_hash, grant_id, used_at) values (${previous}, ${grantId}::uuid, ${now})`
          yield* sql`delete from oauth_used_refresh_tokens where token_hash in (
                       select token_hash from oauth_used_refresh_tokens where grant_id = ${grantId}::uuid
                        order by seq desc offset ${maxUsedRefreshTokens})`
          return true
        })).pipe(Effect.orDie),

      /** A refresh token used before: its grant is revoked. Whether it was one. */
      refreshReused: (hash: Uint8Array) =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: RevokedGrant,
          execute: () => sql`
          delete from oauth_grants where id = (select grant_id from oauth_used_refresh_tokens where token_hash = ${hash})
          returning id::text as grant_id`
        })(undefined).pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

      /** The key digest and resource of a live access token. */
      accessToken: (hash: Uint8Array, now: Date) =>
        SqlSchema.findOne({
          Request: Schema.Void,
          Result: AccessTokenRow,
          execute: () => sql`
          select k.key_hash, g.resource from oauth_grants g join api_keys k on k.id = g.key_id and k.revoked_at is null
           where g.access_hash = ${hash} and g.access_expires_at > ${now}`
        })(undefined).pipe(Effect.orDie),

      /** RFC 7009: the grant of an access or refresh token ends (of `clientId`'s, when it is named). */
      revoke: (hash: Uint8Array, clientId: string | null) =>
        sql`delete from oauth_grants where (access_hash = ${hash} or refresh_hash = ${hash})
                                          and (${clientId}::text is null or client_id = ${clientId})`.pipe(Effect.asVoid, Effect.orDie),

      connections: (accountId: AccountId, now: Date) => Effect.orDie(connections({ accountId, now })),

      /** Ends a grant of the account; false when it has none of that id (another account's included). */
      disconnect: (accountId: AccountId, grantId: string) =>
        uuid.test(grantId)
          ? sql`delete from oauth_grants where id = ${grantId}::uuid and account_id = ${accountId}::uuid returning 1`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          )
          : Effect.succeed(false)
    }
  })
}) {}
