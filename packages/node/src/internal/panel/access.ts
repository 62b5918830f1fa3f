/**
 * The panel's guard as a middleware of every request (`Guard.judge` decides): the served Host, the access token, the
 * page token of a change; and the security headers every response carries (no framing, no inline script, no caching).
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Effect, Schema } from "effect"
import * as Guard from "./guard.ts"
import { Panel } from "./panelRun.ts"
import { page } from "./render.ts"
import * as Views from "./views.ts"

/** What every response forbids: framing, inline script and styles, forms to elsewhere, caching. */
const securityHeaders = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cache-control": "no-store"
}

/** The page token a change was sent with. */
const PageToken = Schema.Struct({ page: Schema.optionalKey(Schema.String) })

/**
 * Guards every request (`Guard.judge`): a wrong Host gets 403, no access token 401, the link's token a cookie and the
 * same address without it; a change from another site or from nowhere it says, or without a page token this run
 * signed, 403. Nothing runs
 * before the guard has let a request through. Every response carries the security headers.
 */
export const guard = HttpRouter.middleware(
  (handler) =>
    Effect.gen(function* () {
      const panel = yield* Panel
      const request = yield* HttpServerRequest.HttpServerRequest
      const header = (name: string) => {
        const value = request.headers[name]
        return typeof value === "string" ? value : undefined
      }
      const verdict = Guard.judge(panel.keys, {
        method: request.method,
        url: request.url,
        host: header("host"),
        cookie: request.cookies[panel.keys.cookie],
        origin: header("origin"),
        referer: header("referer"),
        fetchSite: header("sec-fetch-site")
      })
      const response = yield* Effect.gen(function* () {
        switch (verdict._tag) {
          case "WrongHost":
            return page(
              Views.refused("This panel answers only at its own address: open the link mneme panel printed."),
              403
            )
          case "NoToken":
            return page(Views.unauthorized(), 401)
          case "OtherSite":
            return page(Views.refused("A change can only be sent from the panel's own pages."), 403)
          case "UnknownSite":
            return page(
              Views.refused(
                "This change does not say which page sent it (no Origin or Referer header), so it is refused: " +
                  "a change can only be sent from the panel's own pages, in a browser."
              ),
              403
            )
          case "TokenGiven":
            return HttpServerResponse.redirect(verdict.location, { status: 303 }).pipe(
              HttpServerResponse.setCookieUnsafe(panel.keys.cookie, panel.keys.token, {
                httpOnly: true,
                sameSite: "strict",
                path: "/"
              })
            )
          case "Pass": {
            if (request.method === "GET" || request.method === "HEAD") return yield* handler
            const given = yield* HttpServerRequest.schemaBodyUrlParams(PageToken).pipe(
              Effect.map((form) => form.page),
              Effect.orElseSucceed(() => undefined)
            )
            if (!Guard.validPageToken(panel.keys.secret, given)) {
              return page(
                Views.refused(
                  "This change was not sent from a page of this panel (or the page is from an earlier run): " +
                    "reload the page and try again."
                ),
                403
              )
            }
            return yield* handler
          }
        }
      })
      return HttpServerResponse.setHeaders(response, securityHeaders)
    }),
  { global: true }
)
