import { check, report } from "./check.js";

report(check());
// A module worker that imports the package too.
const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
report(new Promise((resolve, reject) => {
  worker.onmessage = (event) => (event.data.ok ? resolve(event.data.value) : reject(new Error(event.data.value)));
  worker.onerror = (event) => reject(new Error(`worker: ${event.message}`));
}), "__workerResult");
