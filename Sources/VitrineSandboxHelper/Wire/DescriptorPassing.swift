import Glibc
import VitrineSystem

/// Messages with descriptors attached (`sendmsg`/`recvmsg` with `SCM_RIGHTS`)
/// over the `SOCK_SEQPACKET` socket between the kiosk and a helper: each
/// message arrives whole or not at all, so no framing is needed.
///
/// Only the kiosk sends descriptors. It reads the helper's replies with plain
/// `recv`, which gives no control buffer, so the kernel closes anything a
/// compromised helper tried to pass back instead of installing it in the kiosk.
package enum DescriptorPassing {
    /// `sendmsg` of `bytes` with `descriptors` attached.
    package static func send(_ socket: Int32, _ bytes: [UInt8], descriptors: [Int32] = []) throws(SystemError) {
        let header = MemoryLayout<cmsghdr>.size
        let dataBytes = descriptors.count * MemoryLayout<Int32>.size
        var control = [UInt8](repeating: 0, count: descriptors.isEmpty ? 0 : aligned(header) + aligned(dataBytes))
        var payload = bytes
        let sent = withMessage(&payload, control: &control) { message, controlBuffer -> Int in
            if !descriptors.isEmpty, let base = controlBuffer.baseAddress {
                // CMSG_FIRSTHDR, CMSG_LEN and CMSG_DATA, which are macros Swift does not import.
                let cmsg = base.assumingMemoryBound(to: cmsghdr.self)
                cmsg.pointee.cmsg_len = numericCast(header + dataBytes)
                cmsg.pointee.cmsg_level = SOL_SOCKET
                cmsg.pointee.cmsg_type = Int32(SCM_RIGHTS)
                descriptors.withUnsafeBytes { (base + aligned(header)).copyMemory(from: $0.baseAddress!, byteCount: dataBytes) }
            }
            while true {
                let result = sendmsg(socket, &message, Int32(MSG_NOSIGNAL))
                if result < 0 && errno == EINTR { continue }
                return result
            }
        }
        guard sent == bytes.count else { throw SystemError("sendmsg", errno: sent < 0 ? .lastCall : .messageTooLong, subject: "the decoding helper's socket") }
    }

    /// `recvmsg` of one message of at most `limit` bytes, and at most `maxDescriptors`
    /// descriptors (each close-on-exec); nil at end of stream. A message or control
    /// data that was cut short is an error, and its descriptors are closed.
    package static func receive(_ socket: Int32, limit: Int, maxDescriptors: Int) throws(SystemError) -> (bytes: [UInt8], descriptors: [Int32])? {
        let header = MemoryLayout<cmsghdr>.size
        var buffer = [UInt8](repeating: 0, count: limit)
        var control = [UInt8](repeating: 0, count: aligned(header) + aligned(maxDescriptors * MemoryLayout<Int32>.size))
        var flags: Int32 = 0
        var descriptors: [Int32] = []
        let received = withMessage(&buffer, control: &control) { message, controlBuffer -> Int in
            var result: Int
            repeat { result = recvmsg(socket, &message, Int32(MSG_CMSG_CLOEXEC)) } while result < 0 && errno == EINTR
            flags = message.msg_flags
            if result >= 0, Int(message.msg_controllen) >= header, let base = controlBuffer.baseAddress {
                let cmsg = base.assumingMemoryBound(to: cmsghdr.self)
                if cmsg.pointee.cmsg_level == SOL_SOCKET, cmsg.pointee.cmsg_type == Int32(SCM_RIGHTS) {
                    let count = (Int(cmsg.pointee.cmsg_len) - header) / MemoryLayout<Int32>.size
                    let data = (base + aligned(header)).assumingMemoryBound(to: Int32.self)
                    descriptors = (0..<max(0, min(count, maxDescriptors))).map { data[$0] }
                }
            }
            return result
        }
        guard received >= 0 else { throw SystemError("recvmsg", subject: "the decoding helper's socket") }
        if flags & Int32(MSG_TRUNC | MSG_CTRUNC) != 0 {
            for descriptor in descriptors { close(descriptor) }
            throw SystemError("recvmsg", errno: .messageTooLong, subject: "a message cut short")
        }
        if received == 0 && descriptors.isEmpty { return nil }
        return (Array(buffer.prefix(received)), descriptors)
    }

    /// `recv` of one message of at most `limit` bytes, with no control buffer:
    /// descriptors the peer attached are discarded by the kernel. nil at end of stream.
    package static func receivePlain(_ socket: Int32, limit: Int) throws(SystemError) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit)
        let received = buffer.withUnsafeMutableBytes { raw -> Int in
            var result: Int
            // MSG_TRUNC: the message's real length, so one too long is known to be cut.
            repeat { result = recv(socket, raw.baseAddress, raw.count, Int32(MSG_TRUNC)) } while result < 0 && errno == EINTR
            return result
        }
        guard received >= 0 else { throw SystemError("recv", subject: "the decoding helper's socket") }
        guard received <= limit else { throw SystemError("recv", errno: .messageTooLong, subject: "a reply of \(received) bytes") }
        return received == 0 ? nil : Array(buffer.prefix(received))
    }

    /// Runs `body` with a message of one `iovec` over `payload` and its control
    /// data over `control` (empty: none), both valid only for the call.
    private static func withMessage(_ payload: inout [UInt8], control: inout [UInt8],
                                    _ body: (inout msghdr, UnsafeMutableRawBufferPointer) -> Int) -> Int {
        payload.withUnsafeMutableBytes { payloadBuffer in
            control.withUnsafeMutableBytes { controlBuffer in
                var vector = iovec(iov_base: payloadBuffer.baseAddress, iov_len: payloadBuffer.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBuffer.baseAddress
                    message.msg_controllen = numericCast(controlBuffer.count)
                    return body(&message, controlBuffer)
                }
            }
        }
    }

    private static func aligned(_ count: Int) -> Int { (count + 7) & ~7 }
}
