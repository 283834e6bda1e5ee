package io.flinkagentsmemory.inspect;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information for a serializer restored from the savepoint itself: the key type of the memory
 * operator is whatever the job used (PyFlink wraps keys in a Row), so the reader takes the
 * savepoint's own key serializer rather than guessing a type that might not be compatible.
 */
final class SerializerTypeInfo<T> extends TypeInformation<T> {

    private static final long serialVersionUID = 1L;

    private final TypeSerializer<T> serializer;

    SerializerTypeInfo(TypeSerializer<T> serializer) {
        this.serializer = serializer;
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Class<T> getTypeClass() {
        return (Class<T>) Object.class;
    }

    @Override
    public boolean isKeyType() {
        return true;
    }

    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return serializer.duplicate();
    }

    @Override
    public String toString() {
        return "SerializerTypeInfo(" + serializer + ")";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof SerializerTypeInfo<?> other && other.serializer.equals(serializer);
    }

    @Override
    public int hashCode() {
        return serializer.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof SerializerTypeInfo;
    }
}
