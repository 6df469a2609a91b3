// The hovered node's label on a box of the theme's surface colour (sigma's default box is always white,
// unreadable under the dark theme's light label text).
import { drawDiscNodeLabel } from "sigma/rendering";
import type { NodeDisplayData, PartialButFor } from "sigma/types";
import type { Settings } from "sigma/settings";

const PADDING = 2;

export function hoverDrawer(background: () => string) {
  return (context: CanvasRenderingContext2D, data: PartialButFor<NodeDisplayData, "x" | "y" | "size" | "label" | "color">,
    settings: Settings): void => {
    const size = settings.labelSize;
    context.font = `${settings.labelWeight} ${size}px ${settings.labelFont}`;
    context.fillStyle = background();
    context.shadowBlur = 8;
    context.shadowColor = "rgba(0, 0, 0, 0.5)";
    const radius = Math.max(data.size, size / 2) + PADDING;
    context.beginPath();
    if (typeof data.label === "string") {
      const boxWidth = Math.round(context.measureText(data.label).width + 5);
      const boxHeight = Math.round(size + 2 * PADDING);
      const angle = Math.asin(boxHeight / 2 / radius);
      const dx = Math.sqrt(Math.abs(radius ** 2 - (boxHeight / 2) ** 2));
      context.moveTo(data.x + dx, data.y + boxHeight / 2);
      context.lineTo(data.x + radius + boxWidth, data.y + boxHeight / 2);
      context.lineTo(data.x + radius + boxWidth, data.y - boxHeight / 2);
      context.lineTo(data.x + dx, data.y - boxHeight / 2);
      context.arc(data.x, data.y, radius, angle, -angle);
    } else {
      context.arc(data.x, data.y, radius, 0, Math.PI * 2);
    }
    context.closePath();
    context.fill();
    context.shadowBlur = 0;
    drawDiscNodeLabel(context, data, settings);
  };
}
