import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option, Schema } from "effect"
import { describeParseError } from "../../kernel/Issues.js"
import { planNames } from "../gateway/Api.js"
import { Accounts } from "./Accounts.js"
import { AccountPassword, AddonCredits, CreateAccount, UpdateAccount } from "./Api.js"

/**
 * `npm run admin -- accounts ...`: the admin API's operations over the same service code,
 * straight on the database. Input goes through the contract's schemas, so the CLI and the
 * HTTP API accept and refuse the same things; output is the admin API's JSON.
 */

const print = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/** Decodes with the contract's schema; a refusal names the field, as the API's 400 does. */
const decode = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Schema.decodeUnknown(schema)(input).pipe(Effect.mapError((error) => new Error(describeParseError(error))))

const account = Args.text({ name: "account" }).pipe(Args.withDescription("Account id or e-mail address"))

/** A limit option: a number, or `plan` to go back to the plan's number. */
const limit = (name: string, description: string) =>
  Options.text(name).pipe(Options.withDescription(`${description} (a number, or "plan")`), Options.optional)

const limitValue = (value: Option.Option<string>) =>
  Option.map(value, (text) => (text === "plan" ? null : Number(text)))

const create = Command.make(
  "create",
  {
    email: Options.text("email").pipe(Options.withDescription("E-mail address of the account")),
    plan: Options.choice("plan", planNames).pipe(Options.withDescription("free, basic, pro or premium")),
    password: Options.text("password").pipe(Options.withDescription("Password for the web session"), Options.optional)
  },
  ({ email, password, plan }) =>
    Effect.gen(function*() {
      const input = yield* decode(CreateAccount, { email, plan, ...Option.match(password, { onNone: () => ({}), onSome: (p) => ({ password: p }) }) })
      yield* print(yield* (yield* Accounts).create(input))
    })
).pipe(Command.withDescription("Create an account and print its API key"))

const show = Command.make("show", { account }, ({ account }) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    yield* print(yield* accounts.view(yield* accounts.resolve(account)))
  })).pipe(Command.withDescription("Show an account's plan, credits and quotas"))

const update = Command.make(
  "update",
  {
    account,
    plan: Options.choice("plan", planNames).pipe(Options.optional),
    monthlyLimit: limit("monthly-limit", "Monthly credit allowance"),
    used: Options.integer("used").pipe(Options.withDescription("Credits used this period"), Options.optional),
    addonRemaining: Options.integer("addon-remaining").pipe(Options.withDescription("Add-on credits left"), Options.optional),
    dailySearchLimit: limit("daily-search-limit", "Daily short-video searches"),
    scriptGenerationLimit: limit("script-generation-limit", "Monthly script generations")
  },
  (options) =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const given: Record<string, Option.Option<unknown>> = {
        plan: options.plan,
        monthly_limit: limitValue(options.monthlyLimit),
        used: options.used,
        addon_remaining: options.addonRemaining,
        daily_search_limit: limitValue(options.dailySearchLimit),
        script_generation_limit: limitValue(options.scriptGenerationLimit)
      }
      const patch = yield* decode(
        UpdateAccount,
        Object.fromEntries(Object.entries(given).flatMap(([key, value]) => Option.isSome(value) ? [[key, value.value]] : []))
      )
      yield* print(yield* accounts.update(yield* accounts.resolve(options.account), patch))
    })
).pipe(Command.withDescription("Change an account's plan, limits or balances"))

const addCredits = Command.make(
  "add-credits",
  { account, amount: Options.integer("amount").pipe(Options.withDescription("Credits in the purchased pack")) },
  ({ account, amount }) =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const input = yield* decode(AddonCredits, { amount })
      yield* print({ credits: yield* accounts.addAddonCredits(yield* accounts.resolve(account), input.amount) })
    })
).pipe(Command.withDescription("Add a purchased add-on credit pack"))

const regenerateKey = Command.make("regenerate-key", { account }, ({ account }) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    yield* print({ api_key: yield* accounts.regenerateKey(yield* accounts.resolve(account)) })
  })).pipe(Command.withDescription("Issue a new API key; the old one stops working at once"))

const showKey = Command.make("show-key", { account }, ({ account }) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    yield* print({ api_key: yield* accounts.revealKey(yield* accounts.resolve(account)) })
  })).pipe(Command.withDescription("Print the account's current API key"))

const setPassword = Command.make(
  "set-password",
  { account, password: Options.text("password").pipe(Options.withDescription("New password for the web session (8 to 200 characters)")) },
  ({ account, password }) =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const valid = yield* decode(Schema.Struct({ password: AccountPassword }), { password })
      const id = yield* accounts.resolve(account)
      yield* accounts.setPassword(id, valid.password)
      yield* print({ id, password: "set; the account's browser sessions were ended" })
    })
).pipe(Command.withDescription("Set the password the account signs in to the key page with"))

export const accountsCommand = Command.make("accounts").pipe(
  Command.withDescription("Manage accounts and their API keys"),
  Command.withSubcommands([create, show, update, addCredits, regenerateKey, showKey, setPassword])
)


