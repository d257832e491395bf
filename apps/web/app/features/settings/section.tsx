import { useNavigation } from "@remix-run/react";
import { Card, Icon } from "../../components/ui";

/** The intent (and row id) of the form being submitted, if any. */
export function usePendingIntent(): { intent: string | null; id: string | null } {
  const navigation = useNavigation();
  if (navigation.state !== "submitting" || !navigation.formData) return { intent: null, id: null };
  return { intent: String(navigation.formData.get("intent") ?? ""), id: String(navigation.formData.get("id") ?? "") || null };
}

/** One settings section: a card with an icon in its title, and an id the section links jump to. */
export function Section({ icon, title, ...card }: Omit<Parameters<typeof Card>[0], "title" | "className"> & { id: string; icon: Parameters<typeof Icon>[0]["name"]; title: string }) {
  return (
    <Card
      className="settings-section"
      title={
        <>
          <Icon name={icon} /> {title}
        </>
      }
      {...card}
    />
  );
}
