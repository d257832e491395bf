import { Link } from "@remix-run/react";
import { NoMatchesCard } from "../../components/list-page";
import { EmptyCard, Icon, TestEventSnippet } from "../../components/ui";
import { STATUS_LABELS } from "../../lib/format";
import { hasListFilter } from "../../lib/list-filter";
import type { EndpointOption, Filter } from "./activity-filter";

/** No rows: no endpoint yet, nothing matching the filters, or an endpoint waiting for its first event. */
export function FeedEmpty({ filter, endpoints }: { filter: Filter; endpoints: EndpointOption[] }) {
  if (endpoints.length === 0) {
    return (
      <EmptyCard
        icon={<Icon name="inbox" />}
        title="No events yet"
        actions={
          <Link to="/" className="button primary">
            <Icon name="plus" />
            Create an endpoint
          </Link>
        }
      >
        <p>Events show up here when one of your endpoints receives a request. Create an endpoint to get a capture URL.</p>
      </EmptyCard>
    );
  }
  const endpoint = endpoints.find((candidate) => candidate.id === filter.endpointId) ?? endpoints[0]!;
  // An endpoint alone is no narrowing: its page waits for its first event like the whole list.
  const { endpointId: _endpoint, ...narrowing } = filter;
  if (hasListFilter(narrowing)) {
    return (
      <NoMatchesCard
        path="/events"
        icon={<Icon name="inbox" />}
        title={filter.search ? "Nothing found" : filter.status ? `No ${STATUS_LABELS[filter.status].toLowerCase()} events` : "No matching events"}
      >
        <p>Nothing matches these filters yet. New matching events will appear here as they arrive.</p>
      </NoMatchesCard>
    );
  }
  return (
    <EmptyCard icon={<Icon name="send" />} title="Waiting for the first event">
      <p>
        Send a request to <strong>{endpoint.name}</strong> and it will appear here straight away — no need to reload.
      </p>
      <div className="empty-snippet">
        <TestEventSnippet webhookUrl={endpoint.webhookUrl} />
      </div>
    </EmptyCard>
  );
}
