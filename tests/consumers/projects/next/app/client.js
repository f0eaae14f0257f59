"use client";
// A client component: rendered on the server first (the package's server entry point loads
// there), then in the browser, where it compacts.
import { useEffect, useState } from "react";
import { TIER_COST_WEIGHT } from "tiered-compaction";
import { check, report } from "./check.js";

export default function Client() {
  const [result, setResult] = useState("pending");
  useEffect(() => {
    const running = check();
    report(running);
    running.then(setResult, (error) => setResult(`error: ${error.message}`));
  }, []);
  return (
    <p>
      auto weight {TIER_COST_WEIGHT.auto}; <span id="result">{result}</span>
    </p>
  );
}
