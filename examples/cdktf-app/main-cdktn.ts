import { App, TerraformStack } from "cdktn";
import { declareShop } from "./shop.js";

// cdktn 0.24, the maintained fork of cdktf: the same stack, built with the other library
const app = new App();
declareShop(new TerraformStack(app, "shop"));
app.synth();
