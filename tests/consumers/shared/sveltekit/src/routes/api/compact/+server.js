import { json } from "@sveltejs/kit";
import { check } from "../../../check.js";

export async function GET() {
  return json({ result: await check() });
}
