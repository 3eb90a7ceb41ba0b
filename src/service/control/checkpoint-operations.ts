import { CheckpointName, CheckpointRequest, type CheckpointAnswer } from "../../contract/control.js";
import { accountErrors } from "../service-error.js";
import type { Checkpoint } from "./checkpoints.js";
import { controlInput, worldNamed, type ControlContext, type ControlOperation } from "./control-call.js";

/** Checkpoints: saved, restored, downloaded and uploaded in the state file's format (docs/manual/testing.md). */
export const CHECKPOINT_OPERATIONS: ReadonlyArray<ControlOperation> = [
  {
    method: "PUT", path: "checkpoints/:name", takesRaw: true,
    async handle(context, call) {
      const name = nameOf(call.params.name);
      if (call.raw !== undefined) {
        const uploaded = await context.checkpoints.upload(name, call.raw, context.worlds.server.schemas());
        return { status: 201, body: answerOf(uploaded) };
      }
      const world = worldNamed(context, controlInput(CheckpointRequest, call.body).world);
      return { status: 201, body: answerOf(await context.checkpoints.save(name, world)) };
    },
  },
  {
    method: "POST", path: "checkpoints/:name/restore",
    async handle(context, call) {
      const checkpoint = checkpointNamed(context, call.params.name);
      const world = worldNamed(context, controlInput(CheckpointRequest, call.body).world);
      await world.replace(checkpoint.mutations);
      return { status: 200, body: { name: checkpoint.name, world: world.id } };
    },
  },
  {
    method: "GET", path: "checkpoints/:name",
    handle(context, call) {
      const checkpoint = checkpointNamed(context, call.params.name);
      return {
        status: 200,
        text: checkpoint.text,
        headers: { "content-type": "text/plain; charset=utf-8", "content-disposition": `attachment; filename="${checkpoint.name}.state"` },
      };
    },
  },
  { method: "GET", path: "checkpoints", handle: (context) => ({ status: 200, body: { checkpoints: context.checkpoints.list().map(answerOf) } }) },
  {
    method: "DELETE", path: "checkpoints/:name",
    handle(context, call) {
      if (!context.checkpoints.delete(nameOf(call.params.name))) throw noSuchCheckpoint(call.params.name!);
      return { status: 204 };
    },
  },
];

function nameOf(name: string | undefined): string {
  return controlInput(CheckpointRequest.extend({ name: CheckpointName }), { name }).name;
}

function checkpointNamed(context: ControlContext, name: string | undefined): Checkpoint {
  const checkpoint = context.checkpoints.get(nameOf(name));
  if (!checkpoint) throw noSuchCheckpoint(name!);
  return checkpoint;
}

function noSuchCheckpoint(name: string) {
  return accountErrors.notFound(`checkpoint ${JSON.stringify(name)} does not exist: save it first (PUT /_converge/checkpoints/${name})`);
}

function answerOf(checkpoint: Checkpoint): CheckpointAnswer {
  return { name: checkpoint.name, world: checkpoint.world ?? null, bytes: Buffer.byteLength(checkpoint.text), savedAt: checkpoint.savedAt.toISOString() };
}
