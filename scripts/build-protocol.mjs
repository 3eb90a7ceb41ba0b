// Second half of `npm run build`: copies the protocol definitions next to the compiled runtime and
// writes protocol.json, their protobufjs descriptor, which the runtime loads at start instead of
// parsing .proto text (src/provider/runtime/proto/README.md).
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import protobuf from "protobufjs";

const root = resolve(import.meta.dirname, "..");
const source = join(root, "src/provider/runtime/proto");
const target = join(root, "dist/src/provider/runtime/proto");
const files = readdirSync(source).filter((name) => name.endsWith(".proto") || name === "README.md").sort();

mkdirSync(target, { recursive: true });
for (const name of files) copyFileSync(join(source, name), join(target, name));

const protocol = new protobuf.Root().loadSync(
  files.filter((name) => name.endsWith(".proto")).map((name) => join(source, name)),
  { keepCase: true },
);
protocol.resolveAll();
writeFileSync(join(target, "protocol.json"), JSON.stringify(protocol.toJSON()));
