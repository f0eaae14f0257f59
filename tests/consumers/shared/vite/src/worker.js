import { check } from "./check.js";

check().then(
  (value) => postMessage({ ok: true, value }),
  (error) => postMessage({ ok: false, value: `${error?.code ? `[${error.code}] ` : ""}${error?.message ?? error}` }),
);
