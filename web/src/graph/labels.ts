// Node labels centred under their node, as BloodHound draws them: they never run into the next rank of a
// left-to-right layout. The hovered node's label sits on a box of the theme's surface colour.
import type { Settings } from "sigma/settings";
import type { NodeDisplayData, PartialButFor } from "sigma/types";

type LabelData = PartialButFor<NodeDisplayData, "x" | "y" | "size" | "label" | "color">;
const PADDING = 2;

function font(settings: Settings): string {
  return `${settings.labelWeight} ${settings.labelSize}px ${settings.labelFont}`;
}

export function drawLabelBelow(context: CanvasRenderingContext2D, data: LabelData, settings: Settings): void {
  if (!data.label) return;
  context.font = font(settings);
  context.fillStyle = settings.labelColor.color ?? "#000";
  const width = context.measureText(data.label).width;
  context.fillText(data.label, data.x - width / 2, data.y + data.size + settings.labelSize + PADDING);
}

export function hoverDrawer(background: () => string) {
  return (context: CanvasRenderingContext2D, data: LabelData, settings: Settings): void => {
    context.font = font(settings);
    context.fillStyle = background();
    context.shadowBlur = 8;
    context.shadowColor = "rgba(0, 0, 0, 0.5)";
    context.beginPath();
    context.arc(data.x, data.y, data.size + PADDING, 0, Math.PI * 2);
    context.closePath();
    context.fill();
    if (data.label) {
      const width = context.measureText(data.label).width + 2 * PADDING;
      const height = settings.labelSize + 2 * PADDING;
      context.fillRect(data.x - width / 2, data.y + data.size + PADDING, width, height + PADDING);
    }
    context.shadowBlur = 0;
    drawLabelBelow(context, data, settings);
  };
}
