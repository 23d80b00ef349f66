import { Context, Effect, Layer } from "effect"

/**
 * A service's layer built from a partial implementation, for tests whose subject is logic (the
 * `makeTestLayer` pattern of Effect's examples, `examples/http-server/test/utils.ts`): every
 * member the test did not give dies when used, naming the service and the member, so a test
 * cannot pass by reaching something it never set up.
 */
export const makeTestLayer = <I, S extends object>(tag: Context.Tag<I, S>) => (service: Partial<S>): Layer.Layer<I> =>
  Layer.succeed(
    tag,
    // (`as S`: the members given are the service's own; the proxy answers every other one with a defect.)
    new Proxy(service, {
      get: (target, member) => member in target ? target[member as keyof typeof target] : unimplemented(tag.key, member)
    }) as S
  )

/**
 * A member that was not given: callable (a method) and an effect (a member that is one), dying
 * either way. Made as Effect's examples make it, a function that also is the failing effect.
 */
const unimplemented = (service: string, member: PropertyKey) => {
  const dead = Effect.dieMessage(`${service}: ${String(member)} is not implemented in this test`)
  const method = () => dead
  Object.assign(method, dead)
  Object.setPrototypeOf(method, Object.getPrototypeOf(dead))
  return method
}
