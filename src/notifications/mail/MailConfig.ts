import { Config, ConfigError, Either, Option, Redacted } from "effect"

/** E-mail settings (README, Settings): where digests are sent through, and from whom. */
export interface MailSettings {
  /** `smtp://user:pass@host:587` or `smtps://...`; none: digests go to the inbox only. */
  readonly smtpUrl: Option.Option<Redacted.Redacted>
  readonly from: string
}

const smtpScheme = /^smtps?:\/\//i

/** `SMTP_URL` is a secret (it may hold a password): refused by name, never echoed. */
const smtpUrl = Config.option(Config.redacted("SMTP_URL")).pipe(
  Config.map(Option.filter((url) => Redacted.value(url).trim() !== "")),
  Config.mapOrFail((url) =>
    Option.match(url, {
      onNone: () => Either.right(url),
      onSome: (value) =>
        smtpScheme.test(Redacted.value(value).trim()) && URL.canParse(Redacted.value(value).trim())
          ? Either.right(url)
          : Either.left(ConfigError.InvalidData(["SMTP_URL"], "must be an smtp:// or smtps:// URL such as smtp://user:password@mail.example.com:587"))
    })
  )
)

export const mailSettings: Config.Config<MailSettings> = Config.all({
  smtpUrl,
  from: Config.nonEmptyString("SMTP_FROM").pipe(Config.withDefault("AdIntel <notifications@adintel.local>"))
})
