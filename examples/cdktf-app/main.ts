import { App, TerraformStack } from "cdktf";
import { declareShop } from "./shop.js";

// cdktf 0.21 (deprecated upstream on 2025-12-10); main-cdktn.ts is the same app on the maintained fork
const app = new App();
declareShop(new TerraformStack(app, "shop"));
app.synth();
