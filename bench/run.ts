import { Effect } from "effect"
import { Hello } from "@mneme/core"
console.log(Effect.runSync(Hello.hello))
