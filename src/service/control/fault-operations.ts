import { FaultRuleRequest, JournalQuery } from "../../contract/control.js";
import { accountErrors } from "../service-error.js";
import { journalEntry, type JournalFilter } from "../request-journal.js";
import { controlInput, worldNamed, type ControlOperation } from "./control-call.js";

/** Scripted faults and the request journal (docs/manual/testing.md). */
export const FAULT_OPERATIONS: ReadonlyArray<ControlOperation> = [
  {
    method: "POST", path: "faults",
    handle(context, call) {
      const input = controlInput(FaultRuleRequest, call.body);
      if (input.world !== undefined) worldNamed(context, input.world);
      return { status: 201, body: context.faults.add(input).view() };
    },
  },
  { method: "GET", path: "faults", handle: (context) => ({ status: 200, body: { faults: context.faults.list().map((rule) => rule.view()) } }) },
  {
    method: "GET", path: "faults/:id",
    handle(context, call) {
      const rule = context.faults.get(call.params.id!);
      if (!rule) throw noSuchRule(call.params.id!);
      return { status: 200, body: rule.view() };
    },
  },
  {
    method: "DELETE", path: "faults/:id",
    handle(context, call) {
      if (!context.faults.remove(call.params.id!)) throw noSuchRule(call.params.id!);
      return { status: 204 };
    },
  },
  {
    method: "DELETE", path: "faults",
    handle(context, call) {
      const world = controlInput(JournalQuery.pick({ world: true }), call.query).world;
      return { status: 200, body: { removed: context.faults.clear(world) } };
    },
  },
  {
    method: "GET", path: "requests",
    handle(context, call) {
      const records = context.journal.records(journalFilter(call.query));
      return { status: 200, body: { requests: records.map(journalEntry), size: context.journal.size, evicted: context.journal.evicted } };
    },
  },
  {
    method: "DELETE", path: "requests",
    handle: (context, call) => ({ status: 200, body: { removed: context.journal.clear(journalFilter(call.query)) } }),
  },
];

/** The query as a filter; a world that no longer exists may still be asked for (its requests stay in the journal). */
function journalFilter(query: Readonly<Record<string, string>>): JournalFilter {
  const input = controlInput(JournalQuery, query);
  return {
    operation: input.operation,
    account: input.account,
    status: input.status === undefined ? undefined : Number(input.status),
    world: input.world,
    identity: input.identity,
    fault: input.fault === undefined ? undefined : input.fault === "true",
    write: input.write === undefined ? undefined : input.write === "true",
  };
}

function noSuchRule(id: string) {
  return accountErrors.notFound(`fault rule ${JSON.stringify(id)} does not exist: GET /_converge/faults lists the rules`);
}
