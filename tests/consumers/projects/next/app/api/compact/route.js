// A route handler: runs on the server for each request.
import { check } from "../../check.js";

export const dynamic = "force-dynamic";

export async function GET() {
  return Response.json({ result: await check() });
}
