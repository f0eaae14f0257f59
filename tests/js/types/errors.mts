// Type-checked (never run) by `tsc -p tests/js/types`: the declared error shape lets a TS user
// narrow a caught error on `code`. Each `@ts-expect-error` line is a wrong use the declarations
// must reject. (tests/js/errors.test.mjs checks that ErrorCode lists exactly the codes thrown.)
import { selectTier, type BudgetPressure, type CompactionError, type ErrorCode, type InputError, type StateError } from "tiered-compaction";

/** What a host writes once: a caught value is `unknown` until its code says it is ours. */
function isCompactionError(value: unknown): value is CompactionError {
  const code: unknown = value instanceof Error ? (value as Error & { code?: unknown }).code : undefined;
  return typeof code === "string" && code.startsWith("ERR_TC_");
}

/** Every code handled; narrowing on `code` gives `path` where the error is about a field. */
export function advice(error: CompactionError): string {
  switch (error.code) {
    case "ERR_TC_INVALID_TYPE":
    case "ERR_TC_OUT_OF_RANGE":
    case "ERR_TC_PARSE": {
      const input: InputError = error;
      const path: string = error.path;
      return `fix ${path} (${input.message})`;
    }
    case "ERR_TC_CALLBACK":
      return `your countTokens failed at ${error.path}: ${String(error.cause)}`;
    case "ERR_TC_NOT_INITIALISED": {
      const state: StateError = error;
      // @ts-expect-error a state error names no field
      const path: string = error.path;
      void [state, path];
      return "await init() first";
    }
    case "ERR_TC_INSTANCE_TRAPPED":
      return `retry: the instance trapped (${String(error.cause)})`;
    case "ERR_TC_INTERNAL":
      return "a bug of tiered-compaction: report it";
    default: {
      // Exhaustive: a code added to ErrorCode without a case above fails here.
      const unhandled: never = error;
      return unhandled;
    }
  }
}

export function tierOrAdvice(pressure: BudgetPressure): string {
  try {
    return selectTier(pressure);
  } catch (caught) {
    if (!isCompactionError(caught)) throw caught;
    if (caught.code === "ERR_TC_OUT_OF_RANGE") {
      const path: string = caught.path;
      return `out of range: ${path}`;
    }
    // @ts-expect-error not one of the library's codes
    if (caught.code === "ERR_TC_OUT_OF_MEMORY") return "never";
    return advice(caught);
  }
}

const codes: ErrorCode[] = ["ERR_TC_INVALID_TYPE", "ERR_TC_OUT_OF_RANGE", "ERR_TC_PARSE", "ERR_TC_CALLBACK", "ERR_TC_NOT_INITIALISED", "ERR_TC_INSTANCE_TRAPPED", "ERR_TC_INTERNAL"];
// @ts-expect-error not one of the library's codes
const unknownCode: ErrorCode = "ERR_TC_TIMEOUT";
void [codes, unknownCode];
