//! How the rules core's own types are written on the wire. The core knows nothing of JSON;
//! the names it already has (`Color::name`, `EndReason::name`) are the wire's, so serde is
//! taught them here rather than in `chess`.

use serde::de::Error as _;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::chess::{ByColor, Color, EndReason};

impl Serialize for Color {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Color {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Color, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Color::from_name(&name).ok_or_else(|| D::Error::unknown_variant(&name, &["white", "black"]))
    }
}

impl Serialize for EndReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for EndReason {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<EndReason, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        EndReason::from_name(&name).ok_or_else(|| D::Error::custom(format!("unknown end reason {name:?}")))
    }
}

impl<T: Serialize> Serialize for ByColor<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut pair = serializer.serialize_struct("ByColor", 2)?;
        pair.serialize_field("white", &self.white)?;
        pair.serialize_field("black", &self.black)?;
        pair.end()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ByColor<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ByColor<T>, D::Error> {
        #[derive(Deserialize)]
        struct Pair<T> {
            white: T,
            black: T,
        }
        let Pair { white, black } = Pair::deserialize(deserializer)?;
        Ok(ByColor { white, black })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_types_are_written_by_their_names() {
        assert_eq!(serde_json::to_string(&Color::Black).unwrap(), r#""black""#);
        assert_eq!(serde_json::from_str::<Color>(r#""white""#).unwrap(), Color::White);
        assert!(serde_json::from_str::<Color>(r#""red""#).is_err());
        for reason in EndReason::ALL {
            let text = serde_json::to_string(&reason).unwrap();
            assert_eq!(text, format!("{:?}", reason.name()));
            assert_eq!(serde_json::from_str::<EndReason>(&text).unwrap(), reason);
        }
        let pair = ByColor { white: 1, black: 2 };
        assert_eq!(serde_json::to_string(&pair).unwrap(), r#"{"white":1,"black":2}"#);
        assert_eq!(serde_json::from_str::<ByColor<u8>>(r#"{"black":2,"white":1}"#).unwrap(), pair);
    }
}
