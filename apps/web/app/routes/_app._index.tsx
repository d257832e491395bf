import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";

export async function loader({ context }: LoaderFunctionArgs) {
  return { endpoints: await context.caller.endpoints.list() };
}

export default function Endpoints() {
  const { endpoints } = useLoaderData<typeof loader>();
  return (
    <section>
      <h1>Endpoints</h1>
      <ul>
        {endpoints.map((endpoint) => (
          <li key={endpoint.id}>{endpoint.name}</li>
        ))}
      </ul>
    </section>
  );
}
