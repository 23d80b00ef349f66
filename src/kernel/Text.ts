import { Option } from "effect"

/**
 * The one rule for text that crosses the boundary (query parameters, JSON fields, form fields,
 * path ids, import lines): PostgreSQL stores neither a NUL character (in `text` or `jsonb`) nor
 * an unpaired UTF-16 surrogate (in `jsonb`, and as replacement characters elsewhere), so such
 * text is bad input, refused with 400 naming the field, never a 500 from the database.
 */
export const textRule = "must not contain NUL or unpaired surrogate characters"

const unstorable = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Whether PostgreSQL can store `text` as it is. */
export const isStorable = (text: string): boolean => !unstorable.test(text)

/** An escaped NUL or surrogate in JSON text. */
const escapedUnstorable = /\\u(0000|[dD][89a-fA-F])/

/**
 * Whether a value parsed from the JSON `text` may hold a string `unstorableTextAt` refuses:
 * false when the text has no NUL or surrogate, raw or escaped (a surrogate pair counts: the
 * answer may be a false alarm, never a miss). Lets an import skip the walk of a clean line.
 */
export const mayHoldUnstorable = (text: string): boolean => unstorable.test(text) || escapedUnstorable.test(text)

const isPlainObject = (value: object): value is Record<string, unknown> => {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * The path of the first string (or object key) in `value` that breaks the rule: strings, arrays
 * and plain objects are searched, anything else (numbers, dates, files) is left alone. A bad
 * key is reported at the object holding it. Iterative, so no input is deep enough to overflow
 * the stack.
 */
export const unstorableTextAt = (value: unknown): Option.Option<ReadonlyArray<PropertyKey>> => {
  const pending: Array<readonly [unknown, ReadonlyArray<PropertyKey>]> = [[value, []]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, path] = next
    if (typeof item === "string") {
      if (!isStorable(item)) return Option.some(path)
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) pending.push([item[i], [...path, i]])
    } else if (typeof item === "object" && item !== null && isPlainObject(item)) {
      const keys = Object.keys(item)
      for (const key of keys) if (!isStorable(key)) return Option.some(path)
      for (let i = keys.length - 1; i >= 0; i--) pending.push([item[keys[i]!], [...path, keys[i]!]])
    }
  }
  return Option.none()
}
