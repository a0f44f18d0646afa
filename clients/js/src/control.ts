/** The emulator's control API (`/_emulator/…`) over plain HTTP: JSON bodies always say so, and no `Origin` is sent. */

import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

export class ControlError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly type: string,
  ) {
    super(message);
    this.name = "ControlError";
  }
}

export interface CallOptions {
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  yaml?: string;
}

/** Calls one emulator's control API: `origin` is `http://host:port`, `adminToken` its `--admin-token`, if any. */
export class Control {
  constructor(
    readonly origin: string,
    readonly adminToken?: string,
  ) {}

  async call<T = any>(method: string, route: string, options: CallOptions = {}): Promise<T> {
    const url = new URL(`/_emulator${route}`, this.origin);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { Accept: "application/json" };
    let body: string | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["Content-Type"] = "application/json";
    } else if (options.yaml !== undefined) {
      body = options.yaml;
      headers["Content-Type"] = "application/yaml";
    }
    if (this.adminToken) headers["X-Emulator-Admin-Token"] = this.adminToken;
    const { status, text } = await send(url, method, headers, body);
    const parsed = text ? JSON.parse(text) : {};
    if (status >= 400) {
      const error = parsed?.error ?? {};
      throw new ControlError(
        `${method} ${url.pathname}: ${status} ${error.type ?? ""}: ${error.message ?? text}`,
        status,
        String(error.type ?? ""),
      );
    }
    return parsed as T;
  }
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<{ status: number; text: string }> {
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  if (body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}
